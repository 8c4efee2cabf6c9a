import { eventDef } from '../../protocol/events/registry.ts';
import test, { type ExecutionContext } from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { assertContract, OpsFrame, ResetFrame } from '../contract/transcript-schemas.ts';
import type { WsClient } from '../helpers/server.ts';

// Core "Transcript protocol": subscribe_v2 / unsubscribe_v2 (docs/websocket.md "Transcript channel").

async function client(t: ExecutionContext, env: EngineEnv): Promise<WsClient> {
  const c = await env.s.ws();
  t.teardown(() => c.close());
  return c;
}

async function subscribeV2(c: WsClient, env: EngineEnv, transcript: Record<string, string>, since?: Record<string, number>) {
  const ack = await c.request('subscribe_v2', { session_id: env.sid, transcript, ...(since ? { transcript_since: since } : {}) });
  if (ack.code !== 0) throw new Error(JSON.stringify(ack));
  return ack;
}

/** Runs one helloText turn (the nth of the session) to its end. */
async function turn(env: EngineEnv, n: number) {
  env.llm.setScript(scripts.helloText);
  await prompt(env, `prompt ${n}`);
  await turnEnded(env, n);
}

/** A round trip: every frame the server sent before its ack has arrived. */
const barrier = (c: WsClient) => c.request('client_hello', { client_id: 'barrier' });

const ops = (c: WsClient, agentId = 'main') => c.frames.filter((f) => f.type === 'transcript.ops' && f.payload.agent_id === agentId);
const opKinds = (frames: any[]) => frames.flatMap((f) => f.payload.ops.map((o: any) => o.op));
// Broadcast session events (event.session.work_changed / status_changed, session.meta.updated: spec/clients.md E5) are
// on the session stream but in no transcript, and never give way to one.
const broadcast = (type: string) => eventDef(type)?.receivers === 'broadcast';
const legacy = (c: WsClient, env: EngineEnv) => c.frames.filter((f) => f.session_id === env.sid && typeof f.seq === 'number' && !broadcast(f.type));
const restSeq = async (env: EngineEnv) => (await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data.seq as number;
/** Every transcript frame a client got satisfies the client contract (spec/clients.md A8, C). */
const contractOk = (t: ExecutionContext, c: WsClient) => {
  for (const f of c.frames) {
    if (f.type === 'transcript.reset') assertContract(ResetFrame, f, 'transcript.reset');
    if (f.type === 'transcript.ops') assertContract(OpsFrame, f, 'transcript.ops');
  }
  t.pass();
};

test('subscribe_v2 sends a transcript.reset of each graded agent: the newest turns and the batch counter REST answers', async (t) => {
  const env = await startEngine(t);
  await turn(env, 1);
  const c = await client(t, env);
  const ack = await subscribeV2(c, env, { main: 'block' });
  t.like(ack.payload, { session_id: env.sid, transcript: { main: 'block' } });
  const reset = await c.waitFor((f) => f.type === 'transcript.reset');
  t.like(reset, { session_id: env.sid, payload: { agent_id: 'main', has_more_older: false } });
  t.is(reset.payload.seq, await restSeq(env));
  t.is(reset.payload.snapshot.items.length, 1);
  t.like(reset.payload.snapshot.items[0], { kind: 'turn', turnId: 't0', state: 'completed' });
  t.like(reset.payload.snapshot.meta, { activity: 'idle' });
  t.true(c.frames.indexOf(reset) > c.frames.findIndex((f) => f.type === 'ack'), 'reset after the ack');
  contractOk(t, c);
});

test('grade delta: every batch of the agent, seq +1 each, deltas merged into appends with exact per-frame offsets', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'delta' });
  const reset = await c.waitFor((f) => f.type === 'transcript.reset');
  await turn(env, 1);
  await barrier(c);
  const seqs = ops(c).map((f) => f.payload.seq);
  t.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => reset.payload.seq + 1 + i), 'consecutive from the reset');
  t.is(seqs.at(-1), await restSeq(env), 'REST seq shares the counter');
  const appends = ops(c).flatMap((f) => f.payload.ops).filter((o: any) => o.op === 'append');
  t.true(appends.length >= 1);
  t.is(appends.map((o: any) => o.text).join(''), 'Hello, world');
  let at = 0;
  for (const o of appends) {
    t.is(o.offset, at, 'offsets exact within the frame');
    at += o.text.length;
  }
  const opened = ops(c).flatMap((f) => f.payload.ops).find((o: any) => o.op === 'frame.upsert' && o.frame.kind === 'text');
  t.like(opened, { turnId: 't0', stepId: 't0.1', frame: { frameId: 't0.1.f1', role: 'assistant', text: '' } });
  t.true(ops(c).some((f) => f.payload.volatile));
  t.deepEqual(opKinds(ops(c)).filter((k: string) => k === 'turn.upsert').length, 2, 'started and ended');
  contractOk(t, c);
});

test('grade block: the durable batches only (delta batches skipped), seq strictly increasing', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  await subscribeV2(c, env, { '*': 'block' });
  await c.waitFor((f) => f.type === 'transcript.reset');
  await turn(env, 1);
  await barrier(c);
  const seqs = ops(c).map((f) => f.payload.seq);
  t.true(seqs.every((x, i) => i === 0 || x > seqs[i - 1]), `strictly increasing: ${seqs}`);
  t.false(ops(c).some((f) => f.payload.volatile), 'no deltas at block grade');
  t.true(opKinds(ops(c)).includes('step.upsert'));
  const text = ops(c).flatMap((f) => f.payload.ops).find((o: any) => o.op === 'frame.upsert' && o.frame.kind === 'text');
  t.is(text.frame.text, 'Hello, world', 'the step\'s message completes the frame');
});

test('grade turn: only the batches of turn boundaries (and subagent / interaction events)', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'turn' });
  await c.waitFor((f) => f.type === 'transcript.reset');
  await turn(env, 1);
  await barrier(c);
  t.is(ops(c).length, 2);
  t.false(opKinds(ops(c)).includes('step.upsert'));
  t.deepEqual(ops(c).map((f) => f.payload.ops.find((o: any) => o.op === 'turn.upsert').turn.state), ['running', 'completed']);
});

test('legacy frames of a graded agent are suppressed on that connection only; other agents\' grades leave them', async (t) => {
  const env = await startEngine(t);
  const graded = await client(t, env);
  const other = await client(t, env);
  for (const c of [graded, other]) t.is((await c.request('subscribe', { session_ids: [env.sid] })).code, 0);
  await subscribeV2(graded, env, { main: 'block' });
  await subscribeV2(other, env, { 'sub-x': 'block' });
  await turn(env, 1);
  await Promise.all([barrier(graded), barrier(other)]);
  t.false(legacy(graded, env).some((f) => (f.payload?.agent_id ?? 'main') === 'main'), 'no legacy frame of main');
  t.true(opKinds(ops(graded)).includes('turn.upsert'));
  t.true(legacy(other, env).some((f) => f.type === 'turn.ended'));
  t.true(legacy(other, env).some((f) => f.type === 'assistant.delta'));
  t.is(ops(other).length, 0);
});

test('resume: transcript_since inside the op journal sends the missed batches instead of a reset', async (t) => {
  const env = await startEngine(t);
  const first = await env.s.ws();
  await subscribeV2(first, env, { main: 'delta' });
  await turn(env, 1);
  await barrier(first);
  const cursor = ops(first).at(-1)!.payload.seq;
  await first.close();
  await turn(env, 2);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'delta' }, { main: cursor });
  await turn(env, 3);
  await barrier(c);
  t.false(c.frames.some((f) => f.type === 'transcript.reset'));
  const seqs = ops(c).map((f) => f.payload.seq);
  t.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => cursor + 1 + i), 'the gap, then live: no hole, no duplicate');
  t.is(seqs.at(-1), await restSeq(env));
  t.is(ops(c).flatMap((f) => f.payload.ops).filter((o: any) => o.op === 'turn.upsert' && o.turn.state === 'completed').length, 2);
  contractOk(t, c);
});

test('resume: a transcript_since the op journal does not cover gets a transcript.reset', async (t) => {
  const env = await startEngine(t);
  await turn(env, 1);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'block' }, { main: 1 });
  const reset = await c.waitFor((f) => f.type === 'transcript.reset');
  t.is(reset.payload.seq, await restSeq(env));
  t.is(reset.payload.snapshot.items.length, 1);
  t.is(ops(c).length, 0);
});

test('unsubscribe_v2 stops the agent\'s ops and its legacy frames flow again', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  t.is((await c.request('subscribe', { session_ids: [env.sid] })).code, 0);
  await subscribeV2(c, env, { main: 'block' });
  await c.waitFor((f) => f.type === 'transcript.reset');
  const ack = await c.request('unsubscribe_v2', { session_id: env.sid, agent_ids: ['main'] });
  t.like(ack, { code: 0, payload: { session_id: env.sid, agent_ids: ['main'] } });
  await turn(env, 1);
  await barrier(c);
  t.is(ops(c).length, 0);
  t.true(legacy(c, env).some((f) => f.type === 'turn.ended'));

  await subscribeV2(c, env, { main: 'turn' });
  t.is((await c.request('unsubscribe_v2', { session_id: env.sid })).payload.agent_ids, null);
  await turn(env, 2);
  await barrier(c);
  t.is(ops(c).length, 0, 'whole session detached');
});

test('subscribe_v2 / unsubscribe_v2 validation: 40001 with details, 40401 for an unknown session', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  const bad = async (payload: unknown, field: RegExp) => {
    const ack = await c.request('subscribe_v2', payload);
    t.is(ack.code, 40001, JSON.stringify(payload));
    t.true(ack.details.some((d: any) => field.test(d.field)), JSON.stringify(ack.details));
  };
  await bad({ session_id: env.sid, transcript: { main: 'loud' } }, /^payload\.transcript/);
  await bad({ session_id: env.sid, transcript: { 'a b': 'turn' } }, /^payload\.transcript/);
  await bad({ session_id: env.sid, transcript: { main: 'turn' }, transcript_since: { main: -1 } }, /^payload\.transcript_since/);
  await bad({ transcript: {} }, /^payload\.session_id/);
  const unknown = await c.request('subscribe_v2', { session_id: 'ses_missing', transcript: { main: 'block' } });
  t.like(unknown, { code: 40401, details: { not_found: ['ses_missing'] } });
  const unsub = await c.request('unsubscribe_v2', { agent_ids: ['main'] });
  t.is(unsub.code, 40001);
  t.is(unsub.details[0].field, 'payload.session_id');
});

test('/asyncapi.json documents subscribe_v2 and the transcript.reset / transcript.ops frames', async (t) => {
  const env = await startEngine(t);
  const msgs = ((await env.s.req('GET', '/asyncapi.json')).body as any).components.messages;
  const payload = (type: string) => msgs[type].payload.properties.payload;
  t.deepEqual(['agent_id', 'seq', 'snapshot', 'has_more_older'].filter((k) => !payload('transcript.reset').required.includes(k)), []);
  t.deepEqual(['agent_id', 'seq', 'ops'].filter((k) => !payload('transcript.ops').required.includes(k)), []);
  t.is(payload('transcript.ops').properties.seq.type, 'number');
  const since = payload('subscribe_v2').properties.transcript_since;
  t.like(since, { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } });
});
