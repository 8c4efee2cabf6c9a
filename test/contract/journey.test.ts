import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, type EngineEnv } from '../helpers/engine.ts';
import type { WsClient } from '../helpers/server.ts';
import { agentCall, say } from '../helpers/subagents.ts';
import { ClientHelloAck, EventPayloads, frameIssues, ResyncRequired, SubscribeAck, TerminalExit, TerminalOutput } from './frames.ts';
import * as v from 'valibot';

// A web client's whole journey through the daemon (spec/clients.md): every WebSocket frame that reaches any of
// four connections (plain subscribe, a web client with client_hello + subscribe_v2, a connection without
// subscriptions, a stale-cursor resubscriber) validates against the client contract in frames.ts.

const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });
const COLOR = { question: 'Which color?', header: 'Color', options: [{ label: 'red', description: 'warm' }, { label: 'blue' }] };

/** The nth main-agent turn.ended of the session seen on `ws` (1-based). */
function mainTurnEnded(ws: WsClient, sid: string, n: number) {
  const ended = (f: any) => f.type === 'turn.ended' && f.session_id === sid && (f.payload.agent_id ?? 'main') === 'main';
  return ws.waitFor((f) => ended(f) && ws.frames.filter(ended).indexOf(f) === n - 1, 30_000);
}

async function journey(t: any, env: EngineEnv, web: WsClient) {
  const { s, sid, ws } = env;
  let turns = 0;
  // The prompt body a web client sends (D2): swarm_mode and opaque metadata keys, accepted.
  const next = async (text: string) => {
    const r = await prompt(env, { content: [{ type: 'text', text }], swarm_mode: false, metadata: { display_text: text } });
    t.is(r.code, 0, JSON.stringify(r));
    t.true(typeof r.data.prompt_id === 'string' && typeof r.data.user_message_id === 'string' && typeof r.data.status === 'string');
    return ++turns;
  };

  // 1. Streaming with thinking.
  env.llm.setScript(scripts.thinkingThenText);
  await mainTurnEnded(ws, sid, await next('think first'));
  t.true(ws.frames.some((f) => f.type === 'thinking.delta') && ws.frames.some((f) => f.type === 'assistant.delta'));

  // 2. A tool call that waits for an approval, approved.
  env.llm.setScript(call('w1', 'Write', { file_path: 'a.txt', content: 'a\n' }), say('written'));
  let n = await next('write a.txt');
  const asked = await ws.waitFor((f) => f.type === 'event.approval.requested' && f.payload.tool_call_id === 'w1', 30_000);
  t.is((await s.post(`/api/v1/sessions/${sid}/approvals/${asked.payload.approval_id}`, { decision: 'approved' })).code, 0);
  await mainTurnEnded(ws, sid, n);

  // 3. A rejected call.
  env.llm.setScript(call('w2', 'Write', { file_path: 'b.txt', content: 'b\n' }), say('fine'));
  n = await next('write b.txt');
  const asked2 = await ws.waitFor((f) => f.type === 'event.approval.requested' && f.payload.tool_call_id === 'w2', 30_000);
  t.is((await s.post(`/api/v1/sessions/${sid}/approvals/${asked2.payload.approval_id}`, { decision: 'rejected', feedback: 'not now' })).code, 0);
  await mainTurnEnded(ws, sid, n);
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { permission_mode: 'yolo' } })).code, 0);

  // 4. A question.
  env.llm.setScript(call('q1', 'AskUserQuestion', { questions: [COLOR] }), say('blue it is'));
  n = await next('ask me');
  const q = await ws.waitFor((f) => f.type === 'event.question.requested', 30_000);
  const answers = { [q.payload.questions[0].id]: { kind: 'single', option_id: q.payload.questions[0].options[1].id } };
  t.is((await s.post(`/api/v1/sessions/${sid}/questions/${q.payload.question_id}`, { answers })).code, 0);
  await mainTurnEnded(ws, sid, n);

  // 5. A background task; its end (after the turn) wakes the idle agent: a follow-up turn, origin `task`.
  env.llm.setScript(call('b1', 'Bash', { command: 'while [ ! -f bg-go ]; do sleep 0.05; done; echo bg', run_in_background: true }), say('started'), say('noted'));
  n = await next('run in background');
  await mainTurnEnded(ws, sid, n);
  await writeFile(path.join(s.sessions.get(sid)!.cwd, 'bg-go'), '');
  await ws.waitFor((f) => f.type === 'task.terminated', 30_000);
  await mainTurnEnded(ws, sid, ++turns);

  // 6. A subagent.
  env.llm.setScript(agentCall('c1', { description: 'look around', prompt: 'look' }), say('sub done'), say('main done'));
  n = await next('delegate');
  await mainTurnEnded(ws, sid, n);
  t.true(ws.frames.some((f) => f.type === 'subagent.completed'));

  // 7. :undo and :compact.
  // (:undo first: a compaction is a floor no undo goes below.)
  t.is((await s.post(`/api/v1/sessions/${sid}:undo`, {})).code, 0);
  await ws.waitFor((f) => f.type === 'session.undone', 30_000);
  env.llm.setScript(say('SUMMARY'));
  t.is((await s.post(`/api/v1/sessions/${sid}:compact`, {})).code, 0);
  await ws.waitFor((f) => f.type === 'compaction.completed', 30_000);
  await ws.waitFor((f) => f.type === 'event.session.work_changed' && f.session_id === sid && f.payload.busy === false && f.seq > ws.frames.find((x) => x.type === 'compaction.completed').seq);

  // 8. A failed turn.
  env.llm.setScript(scripts.unauthorized);
  n = await next('this fails');
  t.is((await mainTurnEnded(ws, sid, n)).payload.reason, 'failed');
  const failedWork = await ws.waitFor((f) => f.type === 'event.session.work_changed' && f.session_id === sid && f.payload.last_turn_reason === 'failed');
  t.is(failedWork.payload.busy, false);

  // 9. A title (session.meta.updated, stamped with the session), a terminal, a second session created and deleted.
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { title: 'Journey' })).code, 0);
  const term = await s.post(`/api/v1/sessions/${sid}/terminals`, { shell: '/bin/sh' });
  t.is(term.code, 0);
  const tid = term.data.id ?? term.data.terminal_id;
  t.is((await web.request('terminal_attach', { session_id: sid, terminal_id: tid, since_seq: 0 })).code, 0);
  t.is((await web.request('terminal_input', { session_id: sid, terminal_id: tid, data: 'echo journey-$((40+2))\r' })).code, 0);
  const out = await web.waitFor((f) => f.type === 'terminal_output' && web.frames.filter((x) => x.type === 'terminal_output' && x.terminal_id === tid).map((x) => x.payload.data).join('').includes('journey-42'), 30_000);
  t.true(v.is(TerminalOutput, out));
  t.is(out.seq, out.payload.offset + out.payload.data.length);
  t.like(await web.request('terminal_close', { session_id: sid, terminal_id: tid }), { code: 0, payload: { terminal_id: tid, closing: true } });
  t.true(v.is(TerminalExit, await web.waitFor((f) => f.type === 'terminal_exit' && f.terminal_id === tid, 30_000)));
  const other = (await s.post('/api/v1/sessions', { metadata: { cwd: (await s.get(`/api/v1/sessions/${sid}`)).data.metadata.cwd } })).data.id;
  t.is((await s.post(`/api/v1/sessions/${other}:delete`)).code, 0);
}

test('journey: every frame a web client receives validates against the client contract (clients.md)', async (t) => {
  const env = await startEngine(t);
  // A web client: client_hello subscribes with a cursor (E12), subscribe_v2 grades main at delta.
  const web = await env.s.ws();
  t.teardown(() => web.close());
  const hello = await web.request('client_hello', { client_id: 'web_1', subscriptions: [env.sid, 'session_unknown'], cursors: { [env.sid]: { seq: 0 } } });
  t.true(v.is(ClientHelloAck, hello), JSON.stringify(hello));
  t.deepEqual(hello.payload.accepted_subscriptions, [env.sid]);
  const v2 = await web.request('subscribe_v2', { session_id: env.sid, transcript: { main: 'delta' } });
  t.true(v.is(SubscribeAck, v2), JSON.stringify(v2));
  // A connection that follows nothing: broadcasts only.
  const idle = await env.s.ws();
  t.teardown(() => idle.close());

  await journey(t, env, web);

  // A stale cursor gets resync_required with current_seq (E9); the subscribe ack names accepted / not_found (E13).
  const stale = await env.s.ws();
  t.teardown(() => stale.close());
  const ack = await stale.request('subscribe', { session_ids: [env.sid], cursors: { [env.sid]: { seq: 1, epoch: 'not-the-epoch' } } });
  t.true(v.is(SubscribeAck, ack), JSON.stringify(ack));
  t.deepEqual(ack.payload.resync_required, [env.sid]);
  const resync = await stale.waitFor((f) => f.type === 'resync_required');
  t.true(v.is(ResyncRequired, resync));
  t.is(resync.payload.current_seq, env.s.journal.headSeq(env.sid));
  await idle.waitFor((f) => f.type === 'event.session.deleted');

  // Every frame of every connection.
  const all = [env.ws, web, idle, stale].flatMap((c) => c.frames);
  const issues = all.flatMap(frameIssues);
  t.deepEqual(issues, []);
  // The journey produced what the contract is about (a contract that saw nothing proves nothing).
  const seen = new Set(all.map((f) => f.type));
  for (const type of [
    'event.session.created', 'event.workspace.updated', 'event.session.deleted', 'event.session.work_changed', 'event.session.status_changed',
    'session.meta.updated', 'event.approval.requested', 'event.approval.resolved', 'event.question.requested', 'event.question.answered',
    'task.started', 'task.terminated', 'subagent.spawned', 'subagent.completed', 'compaction.started', 'compaction.completed',
    'turn.started', 'turn.ended', 'assistant.delta', 'thinking.delta', 'transcript.reset', 'transcript.ops', 'terminal_output', 'terminal_exit',
  ]) t.true(seen.has(type), type);
  // Every event the client contract reads is one the daemon serves (a renamed event would leave its schema checking
  // nothing), except those clients.md A5 lists as read but never sent by the daemon (no approval expiry, tasks as task.*).
  const served = ((await env.s.req('GET', '/asyncapi.json')).body as any).components.messages;
  t.deepEqual(Object.keys(EventPayloads).filter((type) => !served[type]).sort(), ['event.approval.expired', 'event.session.updated', 'event.session.usage_updated', 'event.task.created']);
  // E5: the work/status/meta broadcasts reached the connection without subscriptions, stamped with the session.
  const stamped = idle.frames.filter((f) => f.type === 'event.session.status_changed');
  t.true(stamped.length > 0 && stamped.every((f) => f.session_id === env.sid && typeof f.seq === 'number'));
  const statuses = env.ws.frames.filter((f) => f.type === 'event.session.status_changed').map((f) => f.payload.status);
  for (const st of ['running', 'awaiting_approval', 'awaiting_question', 'idle']) t.true(statuses.includes(st), st);
  // E5: on one connection, each broadcast frame once.
  const metas = env.ws.frames.filter((f) => f.type === 'session.meta.updated');
  t.is(new Set(metas.map((f) => f.seq)).size, metas.length);
});

test('contract: a frame missing what a client requires fails it (the contract can fail)', (t) => {
  // Each names what is missing (so the contract fails for the reason it should).
  const missing = (frame: any) => [...new Set(frameIssues(frame).flatMap((x) => [...x.matchAll(/(\S+) Invalid key: Expected "([^"]+)"/g)].map((m) => m[1])))].sort();
  const common = { type: 'event.session.status_changed', time: 1, agentId: 'main', sessionId: 's' };
  t.deepEqual(missing({ type: 'event.session.status_changed', session_id: 's', seq: 1, payload: { busy: true, ...common } }), ['status']);
  t.deepEqual(missing({ type: 'event.session.status_changed', session_id: 's', seq: 1, payload: { busy: true, status: 'idle' } }), ['agentId', 'sessionId', 'time', 'type']);
  // F: a tool result without the tool's own output, a turn whose turnId is the engine's string id.
  t.deepEqual(missing({ type: 'tool.result', session_id: 's', seq: 1, payload: { ...common, type: 'tool.result', agent_id: 'main', turnId: 0, step: 1, stepId: 't0.1', toolCallId: 'c' } }), ['output']);
  t.true(frameIssues({ type: 'turn.ended', session_id: 's', seq: 1, payload: { ...common, type: 'turn.ended', turnId: 'turn_1', reason: 'completed', durationMs: 1 } })
    .some((x) => x.includes('turnId Invalid type: Expected number')));
  t.deepEqual(missing({ type: 'event.workspace.created', session_id: '__global__', seq: 1, payload: { id: 'w' } }), ['workspace']);
  t.deepEqual(frameIssues({ type: 'event.session.work_changed', session_id: '__global__', seq: 1, payload: { busy: true } }), ['event.session.work_changed: stamped __global__, not the session']);
  t.deepEqual(missing({ type: 'turn.started', session_id: 's', seq: 1, payload: { agent_id: 'a1', turn_id: 't' } }), ['agentId', 'origin', 'prompt', 'promptId', 'sessionId', 'time', 'turnId', 'type']);
  t.true(frameIssues({ type: 'turn.started', session_id: 's', seq: 1, payload: { agent_id: 'a1', turn_id: 't' } }).includes('turn.started: agent_id without agentId'));
  t.deepEqual(missing({ type: 'terminal_output', session_id: 's', payload: { terminal_id: 't', data: 'x' } }), ['seq', 'terminal_id']);
  t.deepEqual(missing({ type: 'transcript.ops', payload: { agent_id: 'main', ops: [] } }), ['session_id']);
  t.deepEqual(missing({ type: 'resync_required', session_id: 's', payload: { session_id: 's', head_seq: 1, epoch: 'e' } }), ['payload.current_seq']);
});
