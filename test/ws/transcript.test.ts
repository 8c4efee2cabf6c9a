import { eventDef } from '../../protocol/events/registry.ts';
import test, { type ExecutionContext } from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
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
const durableOps = (c: WsClient) => ops(c).filter((f) => !f.payload.volatile);
const opTypes = (frames: any[]) => frames.flatMap((f) => f.payload.ops.map((o: any) => o.type));
// Broadcast session events (event.session.work_changed / status_changed, session.meta.updated: spec/clients.md E5) are
// on the session stream but in no transcript, and never give way to one.
const broadcast = (type: string) => eventDef(type)?.receivers === 'broadcast';
const legacy = (c: WsClient, env: EngineEnv) => c.frames.filter((f) => f.session_id === env.sid && typeof f.seq === 'number' && !broadcast(f.type));
const mainEventsAfter = async (env: EngineEnv, seq: number) => (await journal(env)).filter((e) => e.seq > seq && (e.payload?.agent_id ?? 'main') === 'main' && !broadcast(e.type));

test('subscribe_v2 sends a transcript.reset of each graded agent: the newest turns and the journal seq', async (t) => {
  const env = await startEngine(t);
  await turn(env, 1);
  const c = await client(t, env);
  const ack = await subscribeV2(c, env, { main: 'block' });
  t.like(ack.payload, { session_id: env.sid, transcript: { main: 'block' } });
  const reset = await c.waitFor((f) => f.type === 'transcript.reset');
  t.like(reset, { session_id: env.sid, payload: { agent_id: 'main', has_more: false } });
  t.is(reset.payload.seq, (await journal(env)).at(-1)!.seq);
  t.is(reset.payload.turns.length, 1);
  t.like(reset.payload.turns[0], { agent_id: 'main', state: 'completed' });
  t.true(c.frames.indexOf(reset) > c.frames.findIndex((f) => f.type === 'ack'), 'reset after the ack');
});

test('grade block: every durable event of the agent as one ops batch, seq strictly increasing, nothing missing', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  await subscribeV2(c, env, { '*': 'block' });
  const reset = await c.waitFor((f) => f.type === 'transcript.reset');
  await turn(env, 1);
  await barrier(c);
  const batches = durableOps(c);
  const seqs = batches.map((f) => f.payload.seq);
  t.true(seqs.every((s, i) => i === 0 || s > seqs[i - 1]), `strictly increasing: ${seqs}`);
  const expected = await mainEventsAfter(env, reset.payload.seq);
  t.deepEqual(seqs, expected.map((e) => e.seq));
  t.deepEqual(opTypes(batches), expected.map((e) => e.type));
  t.true(opTypes(batches).includes('turn.step.started'));
  t.false(batches.some((f) => f.payload.volatile), 'no deltas at block grade');
});

test('grade turn: only turn boundaries (and subagent / interaction events) are pushed', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'turn' });
  await c.waitFor((f) => f.type === 'transcript.reset');
  await turn(env, 1);
  await barrier(c);
  t.deepEqual(opTypes(ops(c)), ['turn.started', 'turn.ended']);
});

test('grade delta: the agent\'s streamed deltas come as volatile ops that do not advance seq', async (t) => {
  const env = await startEngine(t);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'delta' });
  await c.waitFor((f) => f.type === 'transcript.reset');
  await turn(env, 1);
  await barrier(c);
  const deltas = ops(c).filter((f) => f.payload.volatile);
  t.true(deltas.length >= 1);
  const parts = deltas.flatMap((f) => f.payload.ops).filter((o: any) => o.type === 'assistant.delta');
  t.is(parts.map((o: any) => o.payload.text).join(''), 'Hello, world');
  let at = 0;
  for (const o of parts) {
    t.is(o.offset, at, 'offsets carried, contiguous');
    at += o.payload.text.length;
  }
  const durable = durableOps(c);
  const started = durable.find((f) => f.payload.ops[0].type === 'turn.started')!.payload.seq;
  const ended = durable.find((f) => f.payload.ops[0].type === 'turn.ended')!.payload.seq;
  for (const d of deltas) t.true(d.payload.seq >= started && d.payload.seq < ended, 'a delta repeats a head seq inside its turn');
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
  t.true(opTypes(ops(graded)).includes('turn.ended'));
  t.true(legacy(other, env).some((f) => f.type === 'turn.ended'));
  t.true(legacy(other, env).some((f) => f.type === 'assistant.delta'));
  t.is(ops(other).length, 0);
});

test('resume: transcript_since inside the op window sends the missed batches instead of a reset', async (t) => {
  const env = await startEngine(t);
  const first = await env.s.ws();
  await subscribeV2(first, env, { main: 'block' });
  await turn(env, 1);
  await barrier(first);
  const cursor = durableOps(first).at(-1)!.payload.seq;
  await first.close();
  await turn(env, 2);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'block' }, { main: cursor });
  await turn(env, 3);
  await barrier(c);
  t.false(c.frames.some((f) => f.type === 'transcript.reset'));
  const expected = await mainEventsAfter(env, cursor);
  t.deepEqual(durableOps(c).map((f) => f.payload.seq), expected.map((e) => e.seq), 'the gap, then live, no duplicate');
  t.deepEqual(opTypes(durableOps(c)).filter((x) => x === 'turn.ended').length, 2);
});

test('resume: a cursor older than the op window gets a transcript.reset', async (t) => {
  const env = await startEngine(t);
  await turn(env, 1);
  const events = Array.from({ length: 1001 }, (_, i) => ({ stream: env.sid, type: 'session.profile_updated' as const, payload: { title: `t${i}` } }));
  await env.s.server.services.journal.append(events);
  const c = await client(t, env);
  await subscribeV2(c, env, { main: 'block' }, { main: 1 });
  const reset = await c.waitFor((f) => f.type === 'transcript.reset');
  t.is(reset.payload.seq, (await journal(env)).at(-1)!.seq);
  t.is(reset.payload.turns.length, 1);
  t.is(durableOps(c).length, 0);
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
  t.truthy(msgs['transcript.reset']);
  t.truthy(msgs['transcript.ops'].payload.properties.payload.properties.seq);
  t.truthy(msgs.subscribe_v2.payload.properties.payload.properties.transcript_since);
});
