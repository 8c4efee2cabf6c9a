import test, { type ExecutionContext } from 'ava';
import { scripts, type StreamReply } from '../../fixtures/llm/index.ts';
import { OP_JOURNAL_BYTES, PACK_BYTES, RAW_BYTES } from '../../projections/transcript/live/op-log.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import type { WsClient } from '../helpers/server.ts';

// The op journal packs its older batches (projections/transcript/live/op-log.ts, docs/transcript.md): a resume that reaches
// into packed batches gets them exactly as they were sent, over the WebSocket and over REST.

async function client(t: ExecutionContext, env: EngineEnv): Promise<WsClient> {
  const c = await env.s.ws();
  t.teardown(() => c.close());
  return c;
}

async function subscribeV2(c: WsClient, env: EngineEnv, since?: number) {
  const ack = await c.request('subscribe_v2', { session_id: env.sid, transcript: { main: 'delta' }, ...(since !== undefined ? { transcript_since: { main: since } } : {}) });
  if (ack.code !== 0) throw new Error(JSON.stringify(ack));
}

/**
 * How many delta batches a turn makes depends on timing (coalescing by time: src/ws/coalesce.ts), so the bytes a
 * turn sends are bounded here by what the fixture controls: its text reaches a client twice however it is batched,
 * in the appends and in the text frame's durable upsert. Three turns thus send at least 1.5x what the unpacked
 * tail holds (RAW_BYTES + 2 * PACK_BYTES); with every delta its own batch (no coalescing), all four turns still
 * stay well inside OP_JOURNAL_BYTES, so nothing a resume needs is dropped.
 */
const TURN_CHARS = Math.ceil((RAW_BYTES + 2 * PACK_BYTES) / 4);
const DELTA_CHARS = 512;
const sizedTurn = (n: number): StreamReply => ({
  events: Array.from({ length: Math.ceil(TURN_CHARS / DELTA_CHARS) }, (_, i) => ({ text: `t${n}d${i} `.padEnd(DELTA_CHARS, '.') })),
});

async function longTurn(env: EngineEnv, n: number) {
  env.llm.setScript(sizedTurn(n));
  await prompt(env, `prompt ${n}`);
  await turnEnded(env, n);
}

const barrier = (c: WsClient) => c.request('client_hello', { client_id: 'barrier' });
const ops = (c: WsClient) => c.frames.filter((f) => f.type === 'transcript.ops' && f.payload.agent_id === 'main');

test('a resume from before the packed batches gets every batch since, as the connected client got them', async (t) => {
  const env = await startEngine(t);
  const watcher = await client(t, env);
  await subscribeV2(watcher, env);
  await longTurn(env, 1);
  await barrier(watcher);
  const cursor = ops(watcher).at(-1)!.payload.seq as number;
  for (let n = 2; n <= 4; n++) await longTurn(env, n);
  await barrier(watcher);
  const after = ops(watcher).filter((f) => f.payload.seq > cursor);
  const sent = after.reduce((n, f) => n + JSON.stringify(f).length, 0);
  t.log(`${after.length} batches, ${sent} bytes since the cursor`);
  t.true(sent > RAW_BYTES + 2 * PACK_BYTES, `the batches since the cursor (${sent} bytes) are more than the unpacked tail holds`);

  const rest = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript/ops?agent_id=main&since_seq=${cursor}`)).data;
  t.true(rest.complete);
  t.is(rest.latest_seq, after.at(-1)!.payload.seq);
  t.deepEqual(rest.batches, after.map((f) => ({ seq: f.payload.seq, ops: f.payload.ops })));

  const resumed = await client(t, env);
  await subscribeV2(resumed, env, cursor);
  await barrier(resumed);
  t.false(resumed.frames.some((f) => f.type === 'transcript.reset'));
  t.deepEqual(ops(resumed).map((f) => f.payload), after.map((f) => f.payload));
});

test('a batch larger than the op journal\'s bound is kept and sent: no gap, the fold goes on', async (t) => {
  const env = await startEngine(t);
  const watcher = await client(t, env);
  // The prompt's batch (its record and the turn, each with the text) is larger than the op journal's bound on its
  // own: every older batch is dropped, and the newest stays, larger than RAW_BYTES.
  await subscribeV2(watcher, env);
  const big = 'x'.repeat(OP_JOURNAL_BYTES + 1024);
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, big)).code, 0);
  await turnEnded(env, 1);
  await barrier(watcher);
  const seqs = ops(watcher).map((f) => f.payload.seq as number);
  t.true(seqs.length > 1);
  t.deepEqual(seqs, seqs.map((_, i) => seqs[0]! + i), 'one batch per seq, none missing');
  t.true(ops(watcher).some((f) => JSON.stringify(f.payload.ops).includes(big)), 'the large batch was sent');
  const transcript = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data;
  t.true(JSON.stringify(transcript).includes('Hello, world'), 'the rest of the turn reached the live fold');
  // The newest batch is kept whatever its size: a resume just behind it reads it.
  const rest = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript/ops?agent_id=main&since_seq=${seqs.at(-2)}`)).data;
  t.deepEqual(rest.batches.map((b: { seq: number }) => b.seq), seqs.slice(-1));
});
