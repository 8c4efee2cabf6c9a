import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine } from '../helpers/engine.ts';
import { agentCall, offered, resultOf, say, tasksUrl, toolResults, turnEnded, userTexts, withSubLlm, YOLO } from '../helpers/subagents.ts';
import { until } from '../helpers/wait.ts';

// Foreground subagents spawned by the Agent tool (Part B "subagent"): the run, its events, its task, cancel and abort.

test('a foreground subagent runs on its prompt alone, without nesting or interaction tools, and its answer is the tool result', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'find things', prompt: 'Look for TODOs.' }), say('Found 3 TODOs.'), say('All done.'));
  await prompt(env, 'delegate this');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  t.is(env.llm.requests.length, 3);
  const [main1, sub, main2] = env.llm.requests.map((r) => r.body);
  t.deepEqual(userTexts(sub), ['Look for TODOs.']);
  t.true(offered(main1).includes('Agent'));
  for (const name of ['Agent', 'AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode']) t.false(offered(sub).includes(name), name);
  t.true(offered(sub).includes('Read'));
  t.deepEqual(toolResults(main2), ['Found 3 TODOs.']);
  t.false(userTexts(main2).includes('Look for TODOs.'));

  const events = await journal(env);
  const spawned = events.find((e) => e.type === 'subagent.spawned')!.payload;
  const agentId: string = spawned.agent_id;
  t.regex(agentId, /^agent_/);
  t.like(spawned, { kind: 'task', parent_agent_id: 'main', parent_tool_call_id: 'c1', description: 'find things', subagent_type: 'general-purpose', model: 'fx/model', background: false });
  const mine = events.filter((e) => e.payload?.agent_id === agentId).map((e) => e.type);
  t.is(mine[0], 'subagent.spawned');
  t.is(mine[1], 'subagent.started');
  t.is(mine[2], 'turn.started');
  t.is(mine.at(-2), 'turn.ended');
  t.is(mine.at(-1), 'subagent.completed');
  const completed = events.find((e) => e.type === 'subagent.completed')!.payload;
  t.like(completed, { agent_id: agentId, result: 'Found 3 TODOs.', task_id: spawned.task_id });
  const subEnd = events.find((e) => e.type === 'turn.ended' && e.payload.agent_id === agentId)!.payload;
  t.is(subEnd.reason, 'completed');
  // The subagent ran inside the Agent tool call of the main turn.
  const seqOf = (pred: (e: any) => boolean) => events.find(pred)!.seq;
  t.true(seqOf((e) => e.type === 'tool.call.started' && e.payload.tool_call_id === 'c1') < seqOf((e) => e.type === 'subagent.spawned'));
  t.true(seqOf((e) => e.type === 'subagent.completed') < seqOf((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'c1'));

  const page = (await env.s.get(`/api/v1/sessions/${env.sid}/messages`)).data;
  const texts = page.items.flatMap((m: any) => m.content.filter((p: any) => p.type === 'text').map((p: any) => p.text));
  t.true(texts.includes('All done.'));
  t.false(texts.includes('Look for TODOs.'));
  t.false(texts.includes('Found 3 TODOs.'));
  // Foreground: nothing left in the task list once the call returned.
  t.deepEqual((await env.s.get(tasksUrl(env, '?status=running'))).data.items, []);
});

test('a subagent keeps the session disabled_tools and cannot spawn a nested agent', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), agentCall('n1', { description: 'nested', prompt: 'q' }), say('alone'), say('ok'));
  await prompt(env, { content: [{ type: 'text', text: 'go' }], disabled_tools: ['Glob', 'Bash'] });
  await turnEnded(env);
  const subTools = offered(env.llm.requests[1]!.body);
  t.false(subTools.includes('Glob'));
  t.false(subTools.includes('Bash'));
  t.true(subTools.includes('Grep'));
  const nested = await resultOf(env, 'n1');
  t.true(nested.is_error);
  t.regex(nested.content, /not available: Agent/);
  t.is((await journal(env)).filter((e) => e.type === 'subagent.spawned').length, 1);
  t.is((await resultOf(env, 'c1')).content, 'alone');
});

test('an unknown subagent_type is a tool error and spawns nothing', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p', subagent_type: 'wizard' }), say('ok'));
  await prompt(env, 'go');
  await turnEnded(env);
  const r = await resultOf(env, 'c1');
  t.true(r.is_error);
  t.regex(r.content, /general-purpose/);
  t.false((await journal(env)).some((e) => e.type === 'subagent.spawned'));
});

test('an explore subagent only gets the read-only tools', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p', subagent_type: 'explore' }), say('seen'), say('ok'));
  await prompt(env, 'go');
  await turnEnded(env);
  // WebSearch too when a search service is configured (test/tools/web.test.ts).
  t.deepEqual(offered(env.llm.requests[1]!.body).sort(), ['Glob', 'Grep', 'Read', 'WebFetch']);
  t.is((await resultOf(env, 'c1')).content, 'seen');
});

test('a failing subagent model request is a tool error the main agent sees; subagent.failed reason failed', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), scripts.badRequest, say('recovered'));
  await prompt(env, 'go');
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  const r = await resultOf(env, 'c1');
  t.true(r.is_error);
  t.regex(r.content, /subagent failed/);
  const failed = (await journal(env)).find((e) => e.type === 'subagent.failed')!.payload;
  t.is(failed.reason, 'failed');
});

test('GET /tasks lists a running subagent; :cancel ends it cancelled and the main agent sees a tool error', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'slow job', prompt: 'sub-only prompt' }), scripts.hang, say('after cancel'));
  await prompt(env, 'go');
  const items = await until(async () => {
    const r = (await env.s.get(tasksUrl(env, '?status=running'))).data.items;
    return r.length ? r : undefined;
  });
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  t.like(items[0], {
    id: spawned.task_id, session_id: env.sid, kind: 'subagent', description: 'slow job', status: 'running',
    model: 'fx/model', agent_id: spawned.agent_id, subagent_type: 'general-purpose', parent_tool_call_id: 'c1',
  });
  t.is(typeof items[0].thinking_effort, 'string');
  // The snapshot lists the live subagent; its prompt stays out of the main messages and in-flight turn.
  const snap = (await env.s.get(`/api/v1/sessions/${env.sid}/snapshot`)).data;
  t.deepEqual(snap.subagents.map((x: any) => x.id), [spawned.task_id]);
  const mainTurn = (await journal(env)).find((e) => e.type === 'turn.started' && e.payload.agent_id === 'main')!.payload.turn_id;
  t.is(snap.in_flight_turn.turn_id, mainTurn);
  const snapUser = snap.messages.items.filter((m: any) => m.role === 'user').map((m: any) => m.content[0].text);
  t.deepEqual(snapUser, ['go']);
  t.deepEqual((await env.s.post(tasksUrl(env, `/${spawned.task_id}:cancel`), {})).data, { cancelled: true });
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'completed');
  const events = await journal(env);
  t.like(events.find((e) => e.type === 'subagent.failed')!.payload, { agent_id: spawned.agent_id, task_id: spawned.task_id, reason: 'cancelled' });
  t.like(events.find((e) => e.type === 'turn.ended' && e.payload.agent_id === spawned.agent_id)!.payload, { reason: 'cancelled' });
  const r = await resultOf(env, 'c1');
  t.true(r.is_error);
  t.regex(r.content, /cancelled/);
  t.is(await env.llm.requests[1]!.outcome, 'aborted');
  t.regex(toolResults(env.llm.requests[2]!.body)[0]!, /cancelled/);
});

test('[subagent] timeout_ms: a subagent running too long fails timed_out', async (t) => {
  // The subagent's model on a fixture of its own: on a slow machine the 200 ms may run out before the subagent's
  // request goes out, and the main agent's next request must not take the reply meant for it (a hang).
  const { env, sub } = await withSubLlm(t, '[subagent]\ntimeout_ms = 200');
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), say('noted'));
  sub.setScript(scripts.hang);
  await prompt(env, 'go');
  await turnEnded(env);
  const failed = (await journal(env)).find((e) => e.type === 'subagent.failed')!.payload;
  t.is(failed.reason, 'timed_out');
  const r = await resultOf(env, 'c1');
  t.true(r.is_error);
  t.regex(r.content, /timed out/);
});

test('aborting the main turn cancels its foreground subagent; nothing is left running', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), scripts.hang);
  await prompt(env, 'go');
  await until(() => env.llm.requests.length === 2);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:abort`, {})).code, 0);
  const ended = await turnEnded(env);
  t.is(ended.payload.reason, 'cancelled');
  t.is(await env.llm.requests[1]!.outcome, 'aborted');
  const events = (await until(async () => {
    const all = await journal(env);
    return all.some((e) => e.type === 'subagent.failed') ? all : undefined;
  }))!;
  t.is(events.find((e) => e.type === 'subagent.failed')!.payload.reason, 'cancelled');
  t.deepEqual((await env.s.get(tasksUrl(env, '?status=running'))).data.items, []);
  t.false((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.busy);
  t.is(env.llm.requests.length, 2);
});

test('manual mode: a subagent tool call waits for an approval naming the subagent', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), { events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'x' } } }] }, say('wrote'), say('done'));
  await prompt(env, 'go');
  const approval = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  t.is(approval.tool_name, 'Write');
  t.is(approval.agent_id, spawned.agent_id);
  t.is(approval.tool_call_id, 'w1');
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${approval.approval_id}`, { decision: 'approved' });
  t.is((await turnEnded(env)).payload.reason, 'completed');
  t.is((await resultOf(env, 'c1')).content, 'wrote');
});

test('aborting the main turn while its subagent waits on an approval cancels both and leaves no pending approval', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), { events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'x' } } }] });
  await prompt(env, 'go');
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`, {});
  t.is((await turnEnded(env)).payload.reason, 'cancelled');
  const failed = await until(async () => (await journal(env)).find((e) => e.type === 'subagent.failed'));
  t.is(failed!.payload.reason, 'cancelled');
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items.length === 0);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.pending_interaction, 'none');
  t.is(env.llm.requests.length, 2);
});

test('plan mode binds the subagents too: a subagent Write is denied', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\ndefault_plan_mode = true` });
  env.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), { events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'x' } } }] }, say('could not'), say('ok'));
  await prompt(env, 'go');
  await turnEnded(env);
  const w = await resultOf(env, 'w1');
  t.true(w.is_error);
  t.regex(w.content, /plan mode/);
  t.is((await resultOf(env, 'c1')).content, 'could not');
});
