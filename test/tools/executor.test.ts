import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, types } from '../helpers/engine.ts';

const YOLO = 'default_permission_mode = "yolo"';
const offered = (body: any): string[] => (body.tools ?? []).map((x: any) => x.function.name).sort();

test('[tools] disabled and per-prompt disabled_tools narrow the offered tools; a disabled call is refused', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[tools]\ndisabled = ["Bash", "bash"]` });
  env.llm.setScript({ events: [{ tool_call: { id: 'x1', name: 'Bash', args: { command: 'echo hi' } } }] }, scripts.helloText);
  await prompt(env, { content: [{ type: 'text', text: 'go' }], disabled_tools: ['Glob'] });
  await turnEnded(env);
  t.deepEqual(offered(env.llm.requests[0]!.body), [
    'Agent', 'AskUserQuestion', 'Edit', 'EnterPlanMode', 'ExitPlanMode', 'Grep', 'Read', 'Skill', 'TodoWrite', 'WebFetch', 'Write',
  ], 'WebSearch only with a search service (test/tools/web.test.ts)');
  const result = (await journal(env)).find((e) => e.type === 'tool.result')!.payload;
  t.true(result.is_error);
  t.regex(result.content, /disabled by configuration: Bash/);
});

test('[tools] enabled keeps only the listed built-ins (exact names)', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[tools]\nenabled = ["Read", "grep", "*"]` });
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  t.deepEqual(offered(env.llm.requests[0]!.body), ['Read']);
  const list = await env.s.get(`/api/v1/tools?session_id=${env.sid}`);
  t.is(list.code, 0);
  t.deepEqual(list.data.tools.filter((x: any) => x.active).map((x: any) => x.name), ['Read']);
});

test('GET /api/v1/tools lists descriptors of the live session, empty when none is live', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const before = await env.s.get('/api/v1/tools');
  t.deepEqual(before.data, { tools: [] });
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  const r = await env.s.get('/api/v1/tools');
  t.is(r.code, 0);
  t.deepEqual(r.data.tools.map((x: any) => x.name), [
    'Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash', 'AskUserQuestion', 'TodoWrite', 'EnterPlanMode', 'ExitPlanMode', 'WebSearch', 'WebFetch', 'Skill', 'Agent', 'AgentDynamicWorkflow', 'GoalComplete',
  ]);
  t.deepEqual(r.data.tools[0], { name: 'Read', description: r.data.tools[0].description, input_schema: null, source: 'builtin', active: true });
  // Offered only in dynamic_workflow_mode, which this session is not in.
  t.false(r.data.tools.find((x: any) => x.name === 'AgentDynamicWorkflow').active);
  // Offered only while the session has an active goal (docs/goals.md).
  t.false(r.data.tools.find((x: any) => x.name === 'GoalComplete').active);
  t.true(r.data.tools[0].description.length > 10);
  const offeredRead = env.llm.requests[0]!.body.tools.find((x: any) => x.function.name === 'Read').function.parameters;
  t.deepEqual(offeredRead.required, ['file_path']);
  const other = await env.s.get('/api/v1/tools?session_id=ses_nope');
  t.deepEqual(other.data, { tools: [] });
});

test('tool events are journaled in order; unknown tools and invalid input are error results', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript({
    events: [
      { tool_call: { id: 'a', name: 'read_file', args: { path: 'x' } } },
      { tool_call: { id: 'b', name: 'Read', args: { file_path: 3, bogus: true } } },
    ],
  }, scripts.helloText);
  await prompt(env, 'go');
  await turnEnded(env);
  const events = await journal(env);
  const stepType = 'turn.step.started';
  t.deepEqual(types(events).filter((x) => x.startsWith('tool.') || x === stepType),
    [stepType, 'tool.call.started', 'tool.result', 'tool.call.started', 'tool.result', stepType]);
  const started = events.find((e) => e.type === 'tool.call.started')!.payload;
  const turnId = events.find((e) => e.type === 'turn.started')!.payload.turn_id;
  t.deepEqual(started, { agent_id: 'main', turn_id: turnId, tool_call_id: 'a', tool_name: 'read_file', input: { path: 'x' } });
  const [unknown, invalid] = events.filter((e) => e.type === 'tool.result').map((e) => e.payload);
  t.like(unknown, { tool_call_id: 'a', tool_name: 'read_file', is_error: true, content: 'tool not available: read_file' });
  t.is(typeof unknown.duration_ms, 'number');
  t.true(invalid.is_error);
  t.regex(invalid.content, /file_path/);
  t.regex(invalid.content, /bogus/);
});
