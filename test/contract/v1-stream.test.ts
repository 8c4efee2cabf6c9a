import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { prompt, startEngine, type EngineEnv } from '../helpers/engine.ts';
import { agentCall, say, turnEnded } from '../helpers/subagents.ts';
import type { WsClient } from '../helpers/server.ts';
import { toolCall } from './transcript-client.ts';
import { v1Issues, V1Payloads } from './v1-frames.ts';

// spec/clients.md F: an SDK-style client (a bot, an editor bridge, an agent SDK) follows a session only through plain
// `subscribe` and the v1 event frames: a text turn, an approved Bash call, a question, a subagent, an abort, and a
// resume after a reconnect with cursors (`subscribe` and `client_hello`). Every frame is checked against F field by
// field with its type (v1-frames.ts), and the values against what happened.

const MANUAL = 'default_permission_mode = "manual"';
const QUESTION = { questions: [{ question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] }] };
const mainOf = (frames: any[], type: string) => frames.filter((f) => f.type === type && f.payload.agent_id === 'main');
const durable = (c: WsClient, sid: string) => c.frames.filter((f) => f.session_id === sid && typeof f.seq === 'number' && f.volatile !== true && f.type !== 'ack');

/** The journey; returns the ids it met. */
async function journey(env: EngineEnv, late: WsClient) {
  const { s, sid, ws } = env;
  const post = async (path: string, body: unknown = {}) => {
    const r = await s.post(`/api/v1/sessions/${sid}${path}`, body);
    if (r.code !== 0) throw new Error(`${path}: ${JSON.stringify(r)}`);
    return r.data;
  };
  // 1. A text turn, with thinking.
  env.llm.setScript({ events: [{ thinking: 'hmm' }, { text: 'Hello, ' }, { text: 'world' }], usage: { input: 12, output: 3 } });
  const first = await post('/prompts', { content: [{ type: 'text', text: 'say hello' }] });
  await turnEnded(env, 1);
  // 2. An approved Bash call; the snapshot while it waits.
  env.llm.setScript(toolCall('b1', 'Bash', { command: 'echo hi', description: 'greet' }), say('ran it'));
  await prompt(env, 'run it');
  const asked = await ws.waitFor((f) => f.type === 'permission.approval.requested');
  const snapshot = (await s.get(`/api/v1/sessions/${sid}/snapshot`)).data;
  await post(`/approvals/${asked.payload.id}`, { decision: 'approved' });
  await turnEnded(env, 2);
  // The late client goes away here and comes back at the end with its cursor.
  const cursor = durable(late, sid).at(-1);
  await late.close();
  // 3. A question.
  env.llm.setScript(toolCall('q1', 'AskUserQuestion', QUESTION), say('noted'));
  await prompt(env, 'ask me');
  const q = await ws.waitFor((f) => f.type === 'event.question.requested');
  const asking = (await s.get(`/api/v1/sessions/${sid}/snapshot`)).data;
  await post(`/questions/${q.payload.question_id}`, { answers: { q_0: { kind: 'single', option_id: 'o_1' } } });
  await turnEnded(env, 3);
  // 4. A subagent.
  env.llm.setScript(agentCall('c1', { description: 'look around', prompt: 'look at the files' }), toolCall('g1', 'Glob', { pattern: '*.txt' }), say('sub done'), say('main done'));
  await prompt(env, 'delegate');
  await turnEnded(env, 4);
  // 5. An abort while the model has not answered.
  env.llm.setScript({ kind: 'hang' });
  await prompt(env, 'never mind');
  await ws.waitFor((f) => f.type === 'turn.step.started' && f.payload.turnId === 4);
  await post(':abort');
  await turnEnded(env, 5);
  await ws.waitFor((f) => f.type === 'prompt.completed' && f.payload.reason === 'cancelled');
  return { first, snapshot, asking, cursor };
}

test('an SDK-style client follows a session through subscribe and the v1 frames: every field of clients.md F with its type', async (t) => {
  const env = await startEngine(t, { extraToml: MANUAL });
  const { s, sid, ws } = env;
  const cwd = (await s.get(`/api/v1/sessions/${sid}`)).data.metadata.cwd;
  const late = await s.ws();
  await late.request('subscribe', { session_ids: [sid] });
  const { first, snapshot, asking, cursor } = await journey(env, late);

  // Resume: the late client's cursor on `subscribe`, and on `client_hello` (how web clients reconnect).
  const head = durable(ws, sid).at(-1).seq;
  const resumed = await s.ws();
  t.teardown(() => resumed.close());
  t.is((await resumed.request('subscribe', { session_ids: [sid], cursors: { [sid]: { seq: cursor.seq, epoch: cursor.epoch } } })).code, 0);
  const hello = await s.ws();
  t.teardown(() => hello.close());
  t.is((await hello.request('client_hello', { client_id: 'sdk_1', subscriptions: [sid], cursors: { [sid]: { seq: cursor.seq, epoch: cursor.epoch } } })).code, 0);
  for (const c of [resumed, hello]) await c.waitFor((f) => f.session_id === sid && f.seq === head);
  const live = durable(ws, sid).filter((f) => f.seq > cursor.seq);
  t.true(live.length > 50, `${live.length} frames after the cursor`);
  for (const c of [resumed, hello]) {
    t.deepEqual(durable(c, sid).filter((f) => f.seq > cursor.seq).map((f) => [f.seq, f.type, f.payload]), live.map((f) => [f.seq, f.type, f.payload]), 'a replay is the frames as sent live');
  }

  // Every frame of every connection keeps F, with its types.
  const all = [ws, late, resumed, hello].flatMap((c) => c.frames);
  t.deepEqual(all.flatMap(v1Issues), []);
  const frames = ws.frames.filter((f) => f.session_id === sid);
  const seen = new Set(frames.map((f) => f.type));
  for (const type of Object.keys(V1Payloads).filter((x) => x !== 'tool.progress' && x !== 'prompt.aborted')) t.true(seen.has(type), `${type} seen`);

  // turnId: each agent's 0-based turn ordinal, the same on every event of the turn; stepId = t<turnId>.<step>.
  const started = mainOf(frames, 'turn.started');
  t.deepEqual(started.map((f) => f.payload.turnId), [0, 1, 2, 3, 4]);
  const ordinalOf = new Map(frames.filter((f) => f.type === 'turn.started').map((f) => [f.payload.turn_id, f.payload.turnId]));
  for (const f of frames.filter((x) => typeof x.payload?.turn_id === 'string')) t.is(f.payload.turnId, ordinalOf.get(f.payload.turn_id), `${f.type} turnId`);
  for (const f of frames.filter((x) => x.payload?.stepId !== undefined)) t.is(f.payload.stepId, `t${f.payload.turnId}.${f.payload.step}`, `${f.type} stepId`);
  const sub = frames.find((f) => f.type === 'turn.started' && f.payload.agent_id !== 'main');
  t.like(sub.payload, { turnId: 0, agentId: sub.payload.agent_id, prompt: 'look at the files', origin: { kind: 'other' } });
  t.like(frames.find((f) => f.type === 'tool.call.started' && f.payload.toolCallId === 'g1').payload, {
    agentId: sub.payload.agent_id, turnId: 0, step: 1, stepId: 't0.1', name: 'Glob', args: { pattern: '*.txt' }, display: { kind: 'search', query: '*.txt' },
  });
  t.like(frames.find((f) => f.type === 'tool.result' && f.payload.toolCallId === 'g1').payload, { agentId: sub.payload.agent_id, turnId: 0, step: 1 });
  t.like(started[0].payload, { type: 'turn.started', sessionId: sid, agentId: 'main', promptId: first.prompt_id, prompt: 'say hello', origin: { kind: 'user' } });
  t.true(Math.abs(started[0].payload.time - Date.parse(started[0].timestamp)) < 1, 'time is the event\'s time in epoch ms');

  // The text turn: deltas under `delta`, step usage in camelCase, the prompt's life.
  const inTurn = (type: string, n: number) => frames.filter((f) => f.type === type && f.payload.agentId === 'main' && f.payload.turnId === n);
  t.is(inTurn('assistant.delta', 0).map((f) => f.payload.delta).join(''), 'Hello, world');
  t.is(inTurn('thinking.delta', 0).map((f) => f.payload.delta).join(''), 'hmm');
  t.like(inTurn('turn.step.started', 0)[0].payload, { step: 1, stepId: 't0.1' });
  t.like(inTurn('turn.step.completed', 0)[0].payload, { step: 1, stepId: 't0.1', finishReason: 'stop', usage: { inputOther: 12, output: 3, inputCacheRead: 0, inputCacheCreation: 0 } });
  t.like(inTurn('turn.ended', 0)[0].payload, { reason: 'completed' });
  t.true(inTurn('turn.ended', 0)[0].payload.durationMs >= 0);
  t.like(frames.find((f) => f.type === 'prompt.submitted').payload, {
    promptId: first.prompt_id, userMessageId: first.user_message_id, status: 'queued', content: [{ type: 'text', text: 'say hello' }], createdAt: first.created_at,
  });
  t.like(frames.find((f) => f.type === 'prompt.started').payload, { promptId: first.prompt_id, turnId: 0 });
  t.like(frames.find((f) => f.type === 'prompt.completed').payload, { promptId: first.prompt_id, reason: 'completed' });
  t.like(frames.find((f) => f.type === 'session.meta.updated').payload, { title: 'say hello', patch: { title: 'say hello', isCustomTitle: false } });

  // The approved Bash call.
  const bash = { kind: 'command', command: 'echo hi', cwd, language: 'bash', description: 'greet' };
  t.like(frames.find((f) => f.type === 'tool.call.started' && f.payload.toolCallId === 'b1').payload, {
    turnId: 1, step: 1, stepId: 't1.1', name: 'Bash', args: { command: 'echo hi', description: 'greet' }, description: 'greet', display: bash,
  });
  const argsText = frames.filter((f) => f.type === 'tool.call.delta' && f.payload.toolCallId === 'b1').map((f) => f.payload.argumentsPart).join('');
  t.deepEqual(JSON.parse(argsText), { command: 'echo hi', description: 'greet' });
  const result = frames.find((f) => f.type === 'tool.result' && f.payload.toolCallId === 'b1').payload;
  t.like(result, { turnId: 1, step: 1, output: 'hi\n', content: 'hi\n[exit code 0]' });
  const approval = { id: frames.find((f) => f.type === 'event.approval.requested').payload.approval_id, turnId: 1, step: 1, toolCallId: 'b1', toolName: 'Bash', display: bash, toolInput: { command: 'echo hi', description: 'greet' } };
  t.like(frames.find((f) => f.type === 'permission.approval.requested').payload, approval);
  t.like(frames.find((f) => f.type === 'permission.approval.resolved').payload, { ...approval, decision: 'approved' });
  // The snapshot taken while it waited: the pending approval and the in-flight turn as v1 frames name them.
  t.like(snapshot.pending_approvals[0], { turnId: 1, toolCallId: 'b1', display: bash, tool_input_display: 'echo hi' });
  t.is(snapshot.in_flight_turn.turnId, 1);

  // The question, then the abort.
  t.like(frames.find((f) => f.type === 'event.question.requested').payload, { turnId: 2, toolCallId: 'q1' });
  t.like(frames.find((f) => f.type === 'event.question.answered').payload, { turnId: 2, toolCallId: 'q1' });
  t.like(asking.pending_questions[0], { turnId: 2, toolCallId: 'q1', questionId: frames.find((f) => f.type === 'event.question.requested').payload.question_id });
  t.is(asking.in_flight_turn.turnId, 2);
  t.like(inTurn('turn.step.interrupted', 4)[0].payload, { step: 1, stepId: 't4.1' });
  t.like(inTurn('turn.ended', 4)[0].payload, { reason: 'cancelled' });
  t.like(frames.filter((f) => f.type === 'prompt.completed' && f.payload.agentId === 'main').at(-1).payload, { turnId: 4, reason: 'cancelled' });
});

test('the F check fails a frame that breaks it (the check can fail)', (t) => {
  const common = { type: 'turn.started', time: 1, agentId: 'main', sessionId: 's' };
  t.deepEqual(v1Issues({ type: 'turn.started', session_id: 's', seq: 1, payload: { ...common, turnId: 0, promptId: 'p', origin: { kind: 'user' }, prompt: 'x' } }), []);
  t.regex(v1Issues({ type: 'turn.started', session_id: 's', seq: 1, payload: { ...common, turnId: 'turn_01', promptId: 'p', origin: { kind: 'user' }, prompt: 'x' } }).join(), /turnId/);
  t.regex(v1Issues({ type: 'assistant.delta', session_id: 's', seq: 1, volatile: true, payload: { ...common, type: 'assistant.delta', turnId: 0, text: 'a' } }).join(), /delta/);
  t.regex(v1Issues({ type: 'turn.step.completed', session_id: 's', seq: 1, payload: {
    ...common, type: 'turn.step.completed', turnId: 0, step: 1, stepId: 't0.1', finishReason: 'stop', usage: { input_tokens: 1, output_tokens: 1 },
  } }).join(), /inputOther/);
  t.regex(v1Issues({ type: 'tool.result', session_id: 's', seq: 1, payload: { ...common, time: 1.5, type: 'tool.result' } }).join(), /time/);
});

test('v1 frames of a running command\'s output, of an aborted queued prompt, and a replay from the start after a restart', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"' });
  const { sid, ws } = env;
  const cwd = (await env.s.get(`/api/v1/sessions/${sid}`)).data.metadata.cwd as string;
  // A command that prints, then waits for a file the test writes once it has seen the output (tool.progress).
  env.llm.setScript(toolCall('b1', 'Bash', { command: 'echo first-line; while [ ! -f go ]; do sleep 0.05; done; echo last-line', description: 'wait' }), say('ran'));
  const running = (await prompt(env, 'run it')).data;
  const progress = await ws.waitFor((f) => f.type === 'tool.progress' && f.payload.toolCallId === 'b1' && /first-line/.test(f.payload.update?.text ?? ''));
  t.like(progress.payload, { type: 'tool.progress', sessionId: sid, agentId: 'main', turnId: 0, toolCallId: 'b1', update: { kind: 'stdout' } });
  // A prompt queued behind the running turn, then aborted: prompt.aborted with abortedAt.
  const queued = (await prompt(env, 'later')).data;
  t.is((await env.s.post(`/api/v1/sessions/${sid}/prompts/${queued.prompt_id}:abort`)).code, 0);
  const aborted = await ws.waitFor((f) => f.type === 'prompt.aborted' && f.payload.promptId === queued.prompt_id);
  t.is(aborted.payload.abortedAt, new Date(aborted.payload.time).toISOString());
  await writeFile(path.join(cwd, 'go'), '');
  await turnEnded(env, 1);
  t.like(ws.frames.find((f) => f.type === 'tool.result' && f.payload.toolCallId === 'b1').payload, { turnId: 0, step: 1, output: 'first-line\nlast-line\n' });
  t.like(ws.frames.find((f) => f.type === 'prompt.completed').payload, { promptId: running.prompt_id, turnId: 0, reason: 'completed' });
  t.deepEqual(ws.frames.flatMap(v1Issues), []);

  // After a restart, a replay from the start (client_hello, cursor 0) gives every durable frame as it was sent live:
  // turnId, step and stepId come from the turn index the daemon kept, not from memory.
  const live = durable(ws, sid);
  await ws.close();
  env.s = await env.s.restart();
  const again = await env.s.ws();
  t.teardown(() => again.close());
  t.is((await again.request('client_hello', { client_id: 'sdk_2', subscriptions: [sid], cursors: { [sid]: { seq: 0 } } })).code, 0);
  await again.waitFor((f) => f.session_id === sid && f.seq === live.at(-1).seq);
  const replayed = new Map(durable(again, sid).map((f) => [f.seq, f]));
  t.deepEqual(live.map((f) => [f.seq, f.type, replayed.get(f.seq)?.payload]), live.map((f) => [f.seq, f.type, f.payload]), 'a replay after a restart is the frames as sent live');
  t.deepEqual(again.frames.flatMap(v1Issues), []);
});
