import test, { type ExecutionContext } from 'ava';
import { until } from '../helpers/wait.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthBan } from '../../protocol/access/token.ts';
import { accessPolicy } from '../../protocol/access/host.ts';
import { WsHub } from '../../src/ws/hub.ts';
import { prompt, startEngine, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { agentCall, say } from '../helpers/subagents.ts';
import { connectWs, TEST_TOKEN, type WsClient } from '../helpers/server.ts';

// spec/clients.md C ("ops seq"): one counter per (session, agent), +1 for every dispatched batch. However many hubs
// deliver the batches, each batch takes one seq in the op journal: two hubs (a second one on its own listener, as
// tests build) must see the same consecutive seqs, and GET /transcript/ops must hold each batch once.

async function secondHub(t: ExecutionContext, env: EngineEnv): Promise<string> {
  const s = env.s;
  const hub = new WsHub(s.hubDeps, new AuthBan(false), accessPolicy({ host: '127.0.0.1' }));
  const http = createServer();
  hub.attach(http);
  s.journal.on('committed', hub.onCommitted);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    s.journal.off('committed', hub.onCommitted);
    await hub.close();
    await new Promise((resolve) => http.close(resolve));
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

async function follow(t: ExecutionContext, env: EngineEnv, c: WsClient): Promise<void> {
  t.teardown(() => c.close());
  const ack = await c.request('subscribe_v2', { session_id: env.sid, transcript: { '*': 'delta' } });
  if (ack.code !== 0) throw new Error(JSON.stringify(ack));
  await c.waitFor((f) => f.type === 'transcript.reset' && f.payload.agent_id === 'main');
}

/** Per agent: the reset's seq (when one came) and each ops batch's seq, in arrival order. */
function seqsByAgent(c: WsClient): Map<string, { reset?: number; ops: number[] }> {
  const out = new Map<string, { reset?: number; ops: number[] }>();
  for (const f of c.frames) {
    if (f.type !== 'transcript.reset' && f.type !== 'transcript.ops') continue;
    let a = out.get(f.payload.agent_id);
    if (!a) out.set(f.payload.agent_id, (a = { ops: [] }));
    if (f.type === 'transcript.reset') a.reset = f.payload.seq;
    else a.ops.push(f.payload.seq);
  }
  return out;
}

const barrier = (c: WsClient) => c.request('client_hello', { client_id: 'barrier' });

test('one seq per batch per agent, whatever the number of hubs delivering it: two agents, two hubs, no gaps, the same seqs', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const base = await secondHub(t, env);
  const a = await connectWs(env.s.baseUrl, undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
  const b = await connectWs(base, undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
  await follow(t, env, a);
  await follow(t, env, b);
  env.llm.setScript(agentCall('c1', { description: 'look', prompt: 'Look around.' }), say('Seen.'), say('All done.'));
  await prompt(env, 'delegate');
  await turnEnded(env);
  await Promise.all([barrier(a), barrier(b)]);
  // A batch may still leave after the turn's end (the pacing's window, the records a turn's end updates): take
  // both clients' batches and the op journal at one moment when the three agree on the newest batch of the main
  // agent, and check that moment (batches after it are not compared: they may be on their way).
  const snapshot = (await until(async () => {
    const reset = seqsByAgent(a).get('main')?.reset;
    if (reset === undefined) return undefined;
    const r = await env.s.get(`/api/v1/sessions/${env.sid}/transcript/ops?agent_id=main&since_seq=${reset}`);
    const [seenA, seenB] = [seqsByAgent(a), seqsByAgent(b)];
    const newest = seenA.get('main')?.ops.at(-1);
    const agree = r.code === 0 && r.data.latest_seq === newest && seenB.get('main')?.ops.at(-1) === newest;
    return agree ? { seenA, seenB, journal: r.data as { latest_seq: number; batches: { seq: number }[] } } : undefined;
  }, 30_000, "both clients hold the op journal's newest batch"))!;

  const seen = snapshot.seenA;
  t.true(seen.size >= 2, `main and the subagent both had batches (${[...seen.keys()].join(', ')})`);
  for (const [agentId, { reset, ops }] of seen) {
    t.true(ops.length >= 1, agentId);
    const first = reset !== undefined ? reset + 1 : ops[0]!;
    t.deepEqual(ops, ops.map((_, i) => first + i), `${agentId}: consecutive, +1 per batch`);
  }
  // The subagent's batches may differ in their newest one between the clients (not part of the moment agreed on).
  const main = seen.get('main')!;
  t.deepEqual(snapshot.seenB.get('main'), main, 'the second hub delivered the same batches with the same seqs');
  t.deepEqual([...snapshot.seenB.keys()].sort(), [...seen.keys()].sort(), 'the same agents on both hubs');
  for (const [agentId, { ops }] of snapshot.seenB) {
    const mine = seen.get(agentId)?.ops ?? [];
    const common = Math.min(mine.length, ops.length);
    t.deepEqual(ops.slice(0, common), mine.slice(0, common), `${agentId}: the same seqs on both hubs`);
  }
  t.deepEqual(snapshot.journal.batches.map((x) => x.seq), main.ops, 'the op journal holds each batch once');
  t.is(snapshot.journal.latest_seq, main.ops.at(-1)!);
});

test('the live transcripts take one listener: a second one, which would give a batch a second seq, is refused', async (t) => {
  const env = await startEngine(t);
  const listener = { committed() {}, streamed() {}, flush() {}, dropped() {}, wanted: () => false };
  t.throws(() => env.s.liveTranscripts.listen(listener), { message: /one listener/ });
});
