import test, { type ExecutionContext } from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, type EngineEnv } from '../helpers/engine.ts';
import type { TestServer, WsClient } from '../helpers/server.ts';
import { agentCall, say } from '../helpers/subagents.ts';
import { until } from '../helpers/wait.ts';
import { ReferenceTranscript, restView } from './reference-reducer.ts';
import { assertContract, OpsFrame, ResetFrame, TranscriptResponse } from './transcript-schemas.ts';

// Fold equivalence (issue 13): a client store written from spec/clients.md C applies the REST baseline and then
// every transcript.ops batch in order; after each turn it must equal a fresh GET /transcript, also across a
// reconnect with transcript_since and across a daemon restart.

const MANUAL = 'default_permission_mode = "manual"';
const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });
const ask = { question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] };

interface Client { ws: WsClient; store: ReferenceTranscript; next: number }

async function rest(s: TestServer, sid: string) {
  const r = await s.get(`/api/v1/sessions/${sid}/transcript?agent_id=main&page_size=100`);
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  assertContract(TranscriptResponse, r.data, 'GET /transcript');
  return r.data;
}

/** The client's order (A8): REST baseline, then subscribe_v2 with transcript_since = the REST seq (or the store's watermark). */
async function connect(s: TestServer, sid: string, store?: ReferenceTranscript): Promise<Client> {
  const ws = await s.ws();
  let since = store?.watermark;
  if (!store) {
    store = new ReferenceTranscript();
    const d = await rest(s, sid);
    store.load(d, d.seq);
    since = d.seq;
  }
  const ack = await ws.request('subscribe_v2', { session_id: sid, transcript: { main: 'delta' }, ...(since !== undefined ? { transcript_since: { main: since } } : {}) });
  if (ack.code !== 0) throw new Error(JSON.stringify(ack));
  return { ws, store, next: 0 };
}

/** Applies the frames that arrived since the last pump. */
function pump(c: Client): void {
  for (; c.next < c.ws.frames.length; c.next++) {
    const f = c.ws.frames[c.next];
    if (f.type !== 'transcript.reset' && f.type !== 'transcript.ops') continue;
    assertContract(f.type === 'transcript.reset' ? ResetFrame : OpsFrame, f, f.type);
    if (f.payload.agent_id === 'main') c.store.frame(f);
  }
}

/** Waits until the store has caught up with the REST watermark, then compares. */
async function same(t: ExecutionContext, c: Client, s: TestServer, sid: string, step: string): Promise<void> {
  let d: any;
  await until(async () => {
    pump(c);
    d = await rest(s, sid);
    return d.seq !== undefined && c.store.watermark === d.seq;
  }, 30_000);
  t.deepEqual(c.store.view(), restView(d), step);
}

/** Idle for the session and for its transcript (the fold takes the turn's end from the journal a moment later). */
const idle = (s: TestServer, sid: string) => until(async () => {
  const st = (await s.get(`/api/v1/sessions/${sid}/status`)).data;
  return (!st.busy && (await rest(s, sid)).meta.activity === 'idle') || undefined;
}, 30_000);

/** Waits until GET /transcript lists the interaction as pending (the approvals and questions routes may answer first). */
const pendingInTranscript = (s: TestServer, sid: string, id: string) =>
  until(async () => (await rest(s, sid)).pending_interactions.includes(id) || undefined, 30_000);

const pendingOf = (s: TestServer, sid: string, kind: 'approvals' | 'questions') =>
  until(async () => (await s.get(`/api/v1/sessions/${sid}/${kind}?status=pending`)).data.items[0], 30_000);

test('the client store folded from REST + ops equals GET /transcript after every turn, across a reconnect and a restart', async (t) => {
  const env: EngineEnv = await startEngine(t, { extraToml: MANUAL });
  const { sid } = env;
  let c = await connect(env.s, sid);
  t.teardown(() => c.ws.close());

  env.llm.setScript(scripts.thinkingThenText);
  await prompt(env, 'think first');
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'thinking and text');
  t.deepEqual(c.store.view().items[0].steps[0].frames.map((f: any) => f.kind), ['thinking', 'text']);
  t.like(c.store.view().meta.agent, { permission: 'manual', phase: { kind: 'ended', turnId: 0, reason: 'completed' } });
  t.true(typeof c.store.view().items[0].steps[0].llmTiming.llmFirstTokenLatencyMs === 'number');

  env.llm.setScript(call('w1', 'Write', { file_path: 'out.txt', content: 'hi\n' }), scripts.helloText);
  await prompt(env, 'write it');
  const approval = await pendingOf(env.s, sid, 'approvals');
  await pendingInTranscript(env.s, sid, approval.approval_id);
  await same(t, c, env.s, sid, 'approval pending');
  t.deepEqual(c.store.view().pending_interactions, [approval.approval_id]);
  await env.s.post(`/api/v1/sessions/${sid}/approvals/${approval.approval_id}`, { decision: 'approved' });
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'approved call');
  const tool = c.store.view().items[1].steps[0].frames.find((f: any) => f.kind === 'tool');
  t.like(tool, { toolCallId: 'w1', state: 'done', approvalId: approval.approval_id });

  env.llm.setScript(call('w2', 'Write', { file_path: 'no.txt', content: 'no\n' }), scripts.helloText);
  await prompt(env, 'write another');
  const second = await pendingOf(env.s, sid, 'approvals');
  await env.s.post(`/api/v1/sessions/${sid}/approvals/${second.approval_id}`, { decision: 'rejected', feedback: 'not now' });
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'rejected call');

  env.llm.setScript(call('a1', 'AskUserQuestion', { questions: [ask] }), scripts.helloText);
  await prompt(env, 'ask me');
  const q = await pendingOf(env.s, sid, 'questions');
  await pendingInTranscript(env.s, sid, q.question_id);
  await same(t, c, env.s, sid, 'question pending');
  await env.s.post(`/api/v1/sessions/${sid}/questions/${q.question_id}`, { answers: { q_0: { kind: 'single', option_id: 'o_1' } } });
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'answered question');
  t.like(c.store.interactions.get(q.question_id), { interactionKind: 'question', state: 'answered' });
  t.like(c.store.interactions.get(second.approval_id), { interactionKind: 'approval', state: 'rejected' });

  env.llm.setScript(agentCall('c1', { description: 'find things', prompt: 'Look for TODOs.' }), say('Found 3 TODOs.'), say('All done.'));
  await prompt(env, { content: [{ type: 'text', text: 'delegate' }], permission_mode: 'yolo' });
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'subagent');

  // A large tool input streamed over many deltas: its tool frame updates are spaced (src/ws/transcript/pacing.ts), not lost.
  const big = { file_path: 'big.txt', content: 'line\n'.repeat(8_000) };
  env.llm.setScript({ events: [{ tool_call: { id: 'w1b', name: 'Write', args: big, chunks: 300 } }], delay_ms: 1 }, scripts.helloText);
  await prompt(env, { content: [{ type: 'text', text: 'write a big one' }], permission_mode: 'yolo' });
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'a streamed large tool input');
  t.like(c.store.view().items.at(-1).steps[0].frames.find((f: any) => f.kind === 'tool'), { toolCallId: 'w1b', inputText: JSON.stringify(big), state: 'done' });

  // The last reply answers the follow-up turn when the task ends after the turn (it may end within it).
  env.llm.setScript(call('b1', 'Bash', { command: 'echo bg', run_in_background: true, description: 'bg echo' }), scripts.helloText, say('noted'));
  await prompt(env, { content: [{ type: 'text', text: 'background' }], permission_mode: 'yolo' });
  await idle(env.s, sid);
  await until(async () => (await env.s.get(`/api/v1/sessions/${sid}/tasks?status=running`)).data.items.length === 0, 30_000);
  await same(t, c, env.s, sid, 'background task');
  t.true(c.store.view().items.some((i: any) => i.kind === 'taskref'), 'a taskref item');
  t.true(c.store.view().tasks.some((x: any) => x.kind === 'shell' && x.state === 'completed'));
  t.true(JSON.stringify(c.store.view().items).includes('"agentRefs"'), 'the Agent tool frame names its subagent');

  env.llm.setScript(say('SUMMARY'));
  t.is((await env.s.post(`/api/v1/sessions/${sid}:compact`, {})).code, 0);
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'compaction');
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'to be undone');
  await idle(env.s, sid);

  t.is((await env.s.post(`/api/v1/sessions/${sid}:undo`, {})).code, 0);
  await same(t, c, env.s, sid, 'undo');
  t.true(c.store.view().items.some((i: any) => i.kind === 'marker' && i.marker === 'undo'));
  t.true(c.store.view().items.some((i: any) => i.kind === 'marker' && i.marker === 'compaction'));
  t.deepEqual(c.store.view().items.filter((i: any) => i.marker === 'compaction').map((i: any) => [i.payload.phase, i.payload.trigger]), [['started', 'manual'], ['completed', 'manual']]);

  env.llm.setScript(scripts.badRequest);
  await prompt(env, 'this fails');
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'failed turn');
  const items = c.store.view().items;
  t.is(items.filter((i: any) => i.kind === 'turn').at(-1).state, 'failed');
  t.true(items.some((i: any) => i.kind === 'marker' && i.marker === 'notice'), 'the error notice marker');

  // Reconnect: a turn runs while the client is away; transcript_since replays the missed batches.
  await c.ws.close();
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'while away');
  await idle(env.s, sid);
  c = await connect(env.s, sid, c.store);
  await same(t, c, env.s, sid, 'after a reconnect with transcript_since');
  t.false(c.ws.frames.some((f) => f.type === 'transcript.reset'), 'resumed from the op journal, no reset');
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'after reconnect');
  await idle(env.s, sid);
  await same(t, c, env.s, sid, 'a turn after the reconnect');

  // Restart: the old watermark is not covered (the fresh fold's counter starts past it), so the client gets a
  // reset; then a client starting over from REST resumes from its seq.
  await c.ws.close();
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const old = c.store.watermark!;
  c = await connect(s2, sid, c.store);
  const reset = await c.ws.waitFor((f) => f.type === 'transcript.reset');
  t.true(reset.payload.seq > old, 'the counter of a fresh fold never reuses earlier seqs');
  await same(t, c, s2, sid, 'the reset after a restart');
  const fresh = await connect(s2, sid);
  t.teardown(() => fresh.ws.close());
  env.llm.setScript(scripts.helloText);
  await prompt({ s: s2, sid }, 'after restart');
  await idle(s2, sid);
  await same(t, c, s2, sid, 'a turn after a daemon restart');
  await same(t, fresh, s2, sid, 'a turn after a daemon restart, from a REST baseline');
  t.true(c.store.batches > 10);
});
