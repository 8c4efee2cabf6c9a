import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';
import { startMcpEngine, stdioServer } from '../helpers/mcp.ts';

const call = (id: string, name: string, args: unknown = {}) => ({ events: [{ tool_call: { id, name, args } }] });
const resultOf = async (env: EngineEnv, id: string) => (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)?.payload;

test('end to end: the model calls an MCP tool, the permission gate asks, the user approves, the result reaches the transcript', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const env = await startMcpEngine(t, { fx: stdioServer() }, 'default_permission_mode = "manual"');
  env.llm.setScript(call('m1', 'mcp__fx__echo', { text: 'hi there' }), scripts.helloText);
  t.is((await prompt(env, 'echo it')).code, 0);
  const requested = await env.ws.waitFor((f) => f.type === 'event.approval.requested', 120_000);
  t.is(requested.payload.tool_name, 'mcp__fx__echo');
  t.is(requested.payload.tool_call_id, 'm1');
  const offered = env.llm.requests[0]!.body.tools.map((x: any) => x.function.name);
  t.true(offered.includes('mcp__fx__echo'));
  t.true(offered.includes('Read'));
  const echoSpec = env.llm.requests[0]!.body.tools.find((x: any) => x.function.name === 'mcp__fx__echo').function;
  t.deepEqual(echoSpec.parameters.required, ['text']);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${requested.payload.approval_id}`, { decision: 'approved' })).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.like(await resultOf(env, 'm1'), { tool_name: 'mcp__fx__echo', is_error: false, content: 'echo: hi there' });
  const sent = env.llm.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
  t.is(sent.content, 'echo: hi there');
  const msgs = (await env.s.get(`/api/v1/sessions/${env.sid}/messages`)).data.items;
  const toolMsg = msgs.find((m: any) => m.role === 'tool');
  t.like(toolMsg.content[0], { type: 'tool_result', tool_use_id: 'm1', content: 'echo: hi there' });
  const transcript = JSON.stringify((await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data.items);
  t.true(transcript.includes('echo: hi there'));
});

test('results: progress notifications become tool.progress; images, resources, structured content and errors become tool results; the tool timeout ends a hung call', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const env = await startMcpEngine(t, { fx: stdioServer({}, { toolTimeoutMs: 3000 }) }, 'default_permission_mode = "yolo"');
  env.llm.setScript(
    { events: [
      { tool_call: { id: 'p1', name: 'mcp__fx__progress', args: { steps: 3 } } },
      { tool_call: { id: 'i1', name: 'mcp__fx__image', args: {} } },
      { tool_call: { id: 's1', name: 'mcp__fx__structured', args: {} } },
      { tool_call: { id: 'r1', name: 'mcp__fx__resource', args: {} } },
      { tool_call: { id: 'f1', name: 'mcp__fx__fail', args: {} } },
      { tool_call: { id: 'h1', name: 'mcp__fx__hang', args: {} } },
      { tool_call: { id: 'x1', name: 'mcp__fx__nope', args: {} } },
    ] },
    scripts.helloText,
  );
  t.is((await prompt(env, 'go')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  const progress = env.ws.frames.filter((f) => f.type === 'tool.progress' && f.payload.tool_call_id === 'p1');
  t.deepEqual(progress.map((f) => [f.payload.progress, f.payload.total, f.payload.message]), [[1, 3, 'step 1'], [2, 3, 'step 2'], [3, 3, 'step 3']]);
  t.true(progress.every((f) => f.volatile === true && f.payload.tool_name === 'mcp__fx__progress'));
  t.like(await resultOf(env, 'p1'), { is_error: false, content: 'progressed 3 steps' });
  t.regex((await resultOf(env, 'i1')).content, /^here is a dot\n\[image image\/png, \d+ bytes\]$/);
  t.is((await resultOf(env, 's1')).content, '{"answer":42}');
  t.is((await resultOf(env, 'r1')).content, '[resource file:///notes.txt]\nresource text');
  t.like(await resultOf(env, 'f1'), { is_error: true, content: 'failed on purpose' });
  const hung = await resultOf(env, 'h1');
  t.true(hung.is_error);
  t.regex(hung.content, /timed out/i);
  t.like(await resultOf(env, 'x1'), { is_error: true, content: 'tool not available: mcp__fx__nope' });
});

test('permission rules match MCP tools by name (globs), disabled_tools and [tools] hide them and refuse the call', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const env = await startMcpEngine(t, { fx: stdioServer() }, `default_permission_mode = "yolo"
[tools]
disabled = ["mcp__fx__pid"]
[[permission.rules]]
pattern = "mcp__fx__f*"
decision = "deny"
`);
  env.llm.setScript(
    { events: [
      { tool_call: { id: 'f1', name: 'mcp__fx__fail', args: {} } },
      { tool_call: { id: 'e1', name: 'mcp__fx__echo', args: { text: 'x' } } },
      { tool_call: { id: 'd1', name: 'mcp__fx__pid', args: {} } },
      { tool_call: { id: 'o1', name: 'mcp__fx__other', args: {} } },
    ] },
    scripts.helloText,
  );
  t.is((await prompt(env, { content: [{ type: 'text', text: 'go' }], disabled_tools: ['mcp__fx__other'] })).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  const offered = env.llm.requests[0]!.body.tools.map((x: any) => x.function.name);
  t.true(offered.includes('mcp__fx__echo'));
  t.false(offered.includes('mcp__fx__pid'));
  t.false(offered.includes('mcp__fx__other'));
  t.true((await resultOf(env, 'f1')).is_error);
  t.regex((await resultOf(env, 'f1')).content, /denied|deny/i);
  t.like(await resultOf(env, 'e1'), { is_error: false, content: 'echo: x' });
  t.like(await resultOf(env, 'd1'), { is_error: true, content: 'tool disabled by configuration: mcp__fx__pid' });
  t.like(await resultOf(env, 'o1'), { is_error: true, content: 'tool disabled for this session: mcp__fx__other' });
});

test('elicitation: a server request becomes a question; an answer accepts it, a dismissal declines it', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const env = await startMcpEngine(t, { fx: stdioServer() }, 'default_permission_mode = "yolo"');
  env.llm.setScript(call('a1', 'mcp__fx__ask'), call('a2', 'mcp__fx__ask'), scripts.helloText);
  t.is((await prompt(env, 'ask me')).code, 0);
  const q = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/questions?status=pending`)).data.items[0], 120_000);
  t.is(q.tool_call_id, 'a1');
  t.is(q.questions.length, 2);
  t.regex(q.questions[0].question, /Which color\?/);
  t.deepEqual(q.questions[0].options.map((o: any) => o.label), ['red', 'green', 'Decline']);
  t.deepEqual(q.questions[1].options.map((o: any) => o.label), ['Decline', 'Cancel']);
  const green = q.questions[0].options.find((o: any) => o.label === 'green').id;
  const answered = await env.s.post(`/api/v1/sessions/${env.sid}/questions/${q.question_id}`, {
    answers: { q_0: { kind: 'single', option_id: green }, q_1: { kind: 'other', text: 'bright' } },
  });
  t.is(answered.code, 0, JSON.stringify(answered));
  const q2 = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/questions?status=pending`)).data.items[0], 120_000);
  t.is(q2.tool_call_id, 'a2');
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/questions/${q2.question_id}:dismiss`)).code, 40909);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.is((await resultOf(env, 'a1')).content, 'elicitation accept {"color":"green","note":"bright"}');
  t.is((await resultOf(env, 'a2')).content, 'elicitation decline');
});
