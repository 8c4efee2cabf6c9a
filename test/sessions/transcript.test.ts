import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { agentCall, say, turnEnded as mainTurnEnded, YOLO } from '../helpers/subagents.ts';
import { until } from '../helpers/wait.ts';
import { assertContract, OpsResponse, TranscriptResponse } from '../contract/transcript-schemas.ts';

// Core "Messages and transcript": the transcript read side, folded from the journal (docs/transcript.md).

const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });
const url = (env: Pick<EngineEnv, 'sid'>, rest: string) => `/api/v1/sessions/${env.sid}/transcript${rest}`;
const get = async (env: Pick<EngineEnv, 's' | 'sid'>, rest: string) => env.s.get(url(env, rest));
const data = async (env: Pick<EngineEnv, 's' | 'sid'>, rest: string) => {
  const r = await get(env, rest);
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  if (!rest.startsWith('/')) assertContract(TranscriptResponse, r.data, `GET /transcript${rest}`);
  return r.data;
};
const TODOS1 = [{ id: 'a', content: 'First', status: 'in_progress', activeForm: 'Doing first' }];
const TODOS2 = [{ id: 'a', content: 'First', status: 'completed' }, { id: 'b', content: 'Second', status: 'pending' }];

async function turns(env: EngineEnv, n: number) {
  for (let i = 1; i <= n; i++) {
    env.llm.setScript(scripts.helloText);
    await prompt(env, `prompt ${i}`);
    await turnEnded(env, i);
  }
}

test('a main turn with a tool call is one turn of two steps with the call and its result; todos hold the latest list', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(call('t1', 'TodoWrite', { todos: TODOS1 }), scripts.helloText);
  await prompt(env, 'plan it');
  await turnEnded(env, 1);
  const d = await data(env, '?agent_id=main');
  t.is(d.agent_id, 'main');
  t.is(d.items.length, 1);
  t.false(d.has_more);
  const turn = d.items[0];
  t.like(turn, { kind: 'turn', turnId: 't0', ordinal: 0, state: 'completed', model: 'fx/model', prompt: 'plan it', origin: { kind: 'user' } });
  t.is(turn.triggerPromptId, d.prompts[0].promptId);
  t.like(d.prompts[0], { status: 'completed' });
  t.deepEqual(turn.steps.map((s: any) => [s.stepId, s.ordinal, s.state]), [['t0.1', 1, 'completed'], ['t0.2', 2, 'completed']]);
  t.like(turn.steps[0].frames.find((f: any) => f.kind === 'tool'), {
    frameId: 't0.1.t1', toolCallId: 't1', name: 'TodoWrite', state: 'done', input: { todos: TODOS1 }, todoId: 'todo',
  });
  t.deepEqual(turn.steps[1].frames.map((f: any) => [f.frameId, f.kind, f.text]), [['t0.2.f1', 'text', 'Hello, world']]);
  t.deepEqual(d.todos, [{ todoId: 'todo', updatedAt: d.todos[0].updatedAt, items: [{ ...TODOS1[0], title: 'First' }] }]);
  t.like(d.agents, [{ agentId: 'main', type: 'main', agent_id: 'main', kind: 'main', state: 'idle' }]);
  t.like(d.meta, { activity: 'idle', turns: 1 });
  t.true(d.meta.usage.input_tokens > 0);
  t.true(Number.isInteger(d.seq), 'live session: seq is the op watermark');

  env.llm.setScript(call('t2', 'TodoWrite', { todos: TODOS2 }), scripts.helloText);
  await prompt(env, 'again');
  await turnEnded(env, 2);
  t.deepEqual((await data(env, '?agent_id=main')).todos[0].items.map((i: any) => [i.title, i.status]), [['First', 'done'], ['Second', 'pending']]);
});

test('paging: newest page without a cursor, before_turn / after_turn with has_more', async (t) => {
  const env = await startEngine(t);
  await turns(env, 3);
  const ids = (await data(env, '?agent_id=main')).items.map((x: any) => x.turnId);
  t.deepEqual(ids, ['t0', 't1', 't2']);
  const newest = await data(env, '?agent_id=main&page_size=2');
  t.deepEqual(newest.items.map((x: any) => x.turnId), ids.slice(1));
  t.true(newest.has_more);
  const older = await data(env, `?agent_id=main&page_size=2&before_turn=${ids[1]}`);
  t.deepEqual(older.items.map((x: any) => x.turnId), [ids[0]]);
  t.false(older.has_more);
  const newer = await data(env, `?agent_id=main&page_size=1&after_turn=${ids[0]}`);
  t.deepEqual(newer.items.map((x: any) => x.turnId), [ids[1]]);
  t.true(newer.has_more);
  const last = await data(env, `?agent_id=main&after_turn=${ids[1]}`);
  t.deepEqual(last.items.map((x: any) => x.turnId), [ids[2]]);
  t.false(last.has_more);
  const engineId = newest.items[0].turn_id;
  t.deepEqual((await data(env, `?agent_id=main&before_turn=${engineId}`)).items.map((x: any) => x.turnId), ['t0'], 'the engine turn id pages too');
});

test('validation 40001 and unknown session 40401', async (t) => {
  const env = await startEngine(t);
  await turns(env, 1);
  for (const q of ['', '?agent_id=', '?agent_id=a%20b', '?agent_id=main&page_size=0', '?agent_id=main&page_size=101', '?agent_id=main&page_size=x',
    '?agent_id=main&before_turn=a&after_turn=b', '?agent_id=main&before_turn=turn_nope']) {
    t.is((await get(env, q)).code, 40001, q);
  }
  t.is((await get(env, '/ops?agent_id=main')).code, 40001);
  t.is((await get(env, '/ops?agent_id=main&since_seq=-1')).code, 40001);
  t.is((await get(env, '/plan')).code, 40001);
  t.is((await get(env, '/user-messages?agent_id=a/b')).code, 40001);
  const gone = { s: env.s, sid: 'session_nope' };
  for (const q of ['?agent_id=main', '/ops?agent_id=main&since_seq=0', '/user-messages', '/plan?agent_id=main']) t.is((await get(gone, q)).code, 40401, q);
  const api = (await env.s.req('GET', '/openapi.json')).body as any;
  for (const rest of ['', '/ops', '/user-messages', '/plan']) t.truthy(api.paths[`/api/v1/sessions/{session_id}/transcript${rest}`]?.get, rest);
  t.regex(JSON.stringify(api.paths['/api/v1/sessions/{session_id}/transcript'].get), /pending_interactions/);
});

test('a subagent\'s turns read under its agent_id; the roster lists it; user-messages covers every agent', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCall('c1', { description: 'find things', prompt: 'Look for TODOs.' }), say('Found 3 TODOs.'), say('All done.'));
  await prompt(env, 'delegate this');
  await mainTurnEnded(env);
  const main = await data(env, '?agent_id=main');
  const sub = main.agents.find((a: any) => a.agent_id !== 'main');
  t.like(sub, { kind: 'task', state: 'completed', parent_agent_id: 'main', parent_tool_call_id: 'c1', description: 'find things' });
  t.is(main.items.length, 1);
  t.like(sub, { agentId: sub.agent_id, type: 'sub', parentAgentId: 'main' });
  const tool = main.items[0].steps[0].frames.find((f: any) => f.kind === 'tool');
  t.like(tool, { toolCallId: 'c1', name: 'Agent', state: 'done', output: 'Found 3 TODOs.', agentRefs: [{ agentId: sub.agent_id, role: 'child' }] });
  const d = await data(env, `?agent_id=${sub.agent_id}`);
  t.is(d.items.length, 1);
  t.is(d.items[0].prompt, 'Look for TODOs.');
  t.is(d.items[0].steps[0].frames[0].text, 'Found 3 TODOs.');
  const um = (await data(env, '/user-messages')).agents;
  t.deepEqual(um.map((a: any) => a.agent_id), ['main', sub.agent_id]);
  t.like(um[0].messages[0], { ordinal: 1, state: 'completed', origin: 'user', prompt: 'delegate this', turn_id: main.items[0].turn_id });
  t.like(um[1].messages[0], { state: 'completed', origin: 'subagent_prompt', prompt: 'Look for TODOs.' });
  const one = (await data(env, `/user-messages?agent_id=${sub.agent_id}`)).agents;
  t.is(one.length, 1);
});

test('user-messages states: running, queued, and cancelled when aborted; completed after the turn', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang, scripts.helloText);
  const first = (await prompt(env, 'first')).data.prompt_id;
  const second = (await prompt(env, 'second')).data.prompt_id;
  const third = (await prompt(env, 'third')).data.prompt_id;
  await env.s.post(`/api/v1/sessions/${env.sid}/prompts/${second}:abort`);
  await env.ws.waitFor((f) => f.type === 'turn.step.started');
  const states = async () => Object.fromEntries((await data(env, '/user-messages?agent_id=main')).agents[0].messages.map((m: any) => [m.prompt_id, m.state]));
  t.deepEqual(await states(), { [first]: 'running', [second]: 'cancelled', [third]: 'queued' });
  const running = await data(env, '?agent_id=main');
  t.is(running.items[0].state, 'running');
  t.is(running.meta.activity, 'turn');
  t.is(running.agents[0].state, 'running');
  t.deepEqual(Object.fromEntries(running.prompts.map((p: any) => [p.promptId, p.status])), { [first]: 'running', [second]: 'aborted', [third]: 'queued' });
  await env.s.post(`/api/v1/sessions/${env.sid}/prompts/${first}:abort`);
  await turnEnded(env, 2);
  t.deepEqual(await states(), { [first]: 'cancelled', [second]: 'cancelled', [third]: 'completed' });
  const msgs = (await data(env, '/user-messages?agent_id=main')).agents[0].messages;
  t.is(msgs[1].turn_id, null);
  t.deepEqual(msgs.map((m: any) => m.ordinal), [1, 2, 3]);
});

test('user-messages: a skill activation has origin skill', async (t) => {
  const env = await startEngine(t);
  const root = env.s.workspaceOf(env.sid).root;
  const dir = path.join(root, '.svc-code', 'skills', 'deploy');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'SKILL.md'), '---\nname: "deploy"\ndescription: "Deploys"\n---\nDEPLOY\n');
  env.llm.setScript(scripts.helloText);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/skills/deploy:activate`, { args: 'to staging' })).code, 0);
  await turnEnded(env);
  const [m] = (await data(env, '/user-messages?agent_id=main')).agents[0].messages;
  t.like(m, { origin: 'skill', state: 'completed' });
  t.notRegex(m.prompt, /<skill name=/);
});

test('plan: a reviewed ExitPlanMode shows its plan, options and review; 40416 for another call id', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"\ndefault_plan_mode = true' });
  const PLAN = '# Plan\n\n1. Do it';
  env.llm.setScript(call('x1', 'ExitPlanMode', { plan: PLAN }), scripts.helloText);
  await prompt(env, 'ready?');
  const review = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
  const pending = await data(env, '/plan?agent_id=main');
  t.like(pending.plans[0], { tool_call_id: 'x1', source: 'interaction', plan: PLAN, review: { state: 'pending' } });
  const withReview = await data(env, '?agent_id=main');
  t.deepEqual(withReview.pending_interactions, [review.approval_id]);
  t.like(withReview.interactions[0], { interactionId: review.approval_id, interactionKind: 'approval', state: 'pending', request: { toolName: 'ExitPlanMode', turnId: 0 } });
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${review.approval_id}`, { decision: 'approved', selected_label: 'Approve', feedback: 'go' });
  await turnEnded(env);
  const d = await data(env, '/plan?agent_id=main&tool_call_id=x1');
  t.is(d.plans.length, 1);
  const p = d.plans[0];
  t.like(p, { tool_call_id: 'x1', source: 'interaction', plan: PLAN, review: { state: 'approved', selected_option: 'Approve', feedback: 'go' } });
  t.is(p.turn_id, (await data(env, '?agent_id=main')).items[0].turn_id);
  t.deepEqual(p.options.map((o: any) => o.label), ['Approve', 'Approve and auto-accept edits', 'Keep planning']);
  t.is((await data(env, '?agent_id=main')).pending_interactions.length, 0);
  t.is((await get(env, '/plan?agent_id=main&tool_call_id=nope')).code, 40416);
});

test('ops: the batches after since_seq, consecutive, up to the watermark GET /transcript answers; complete:false when not covered or cold', async (t) => {
  const env = await startEngine(t);
  await turns(env, 1);
  const since = (await data(env, '?agent_id=main')).seq;
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'more');
  await turnEnded(env, 2);
  const ops = await data(env, `/ops?agent_id=main&since_seq=${since}`);
  assertContract(OpsResponse, ops, 'GET /transcript/ops');
  const head = (await data(env, '?agent_id=main')).seq;
  t.true(ops.complete);
  t.is(ops.latest_seq, head);
  t.deepEqual(ops.batches.map((b: any) => b.seq), Array.from({ length: head - since }, (_, i) => since + 1 + i), 'one batch per seq, +1 each');
  const all = ops.batches.flatMap((b: any) => b.ops);
  t.true(all.some((o: any) => o.op === 'turn.upsert' && o.turn.turnId === 't1' && o.turn.state === 'completed'));
  t.true(all.some((o: any) => o.op === 'meta.merge' && o.meta.activity === 'idle'));
  t.deepEqual((await data(env, `/ops?agent_id=main&since_seq=${head}`)).batches, []);
  t.false((await data(env, '/ops?agent_id=main&since_seq=0')).complete, 'before the op journal of this fold');
  t.false((await data(env, `/ops?agent_id=main&since_seq=${head + 1}`)).complete, 'past the watermark');
  t.deepEqual((await data(env, '/ops?agent_id=other&since_seq=0')).batches, []);

  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const cold = { s: s2, sid: env.sid };
  const after = await data(cold, `/ops?agent_id=main&since_seq=${head}`);
  t.false(after.complete);
  const d = await data(cold, '?agent_id=main');
  t.is(d.items.filter((i: any) => i.kind === 'turn').length, 2);
  t.true(Number.isInteger(d.seq), 'a fresh fold of the journal, with its own counter');
  t.true((await data(cold, `/ops?agent_id=main&since_seq=${d.seq}`)).complete, 'ops continue from it');
  t.is(s2.engine.get(env.sid), undefined, 'reading never starts the runtime');
});
