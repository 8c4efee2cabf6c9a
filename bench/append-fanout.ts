import { startHarness, type Harness } from './lib/harness.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { round } from './lib/stats.ts';
import { connectWs, type BenchWs } from './lib/ws-client.ts';

const EVENTS = intEnv('BENCH_EVENTS', 50_000);
const SUBSCRIBERS = intEnv('BENCH_SUBSCRIBERS', 10);
const INFLIGHT = 64;
const TARGET_EVENTS_PER_S = 20_000;
const DELIVERY_LIMIT_MS = 120_000;

/** Resolves when `ws` has received every event after `fromSeq` up to `toSeq`, in order, without gaps. */
function receiveAll(ws: BenchWs, sessionId: string, fromSeq: number, toSeq: number): Promise<number> {
  let expect = fromSeq + 1;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`subscriber got ${expect - fromSeq - 1}/${toSeq - fromSeq} events in ${DELIVERY_LIMIT_MS} ms`)), DELIVERY_LIMIT_MS);
    ws.socket.once('close', (code, reason) => {
      clearTimeout(timer);
      reject(new Error(`subscriber closed by server: ${code} ${reason} after ${expect - fromSeq - 1} events`));
    });
    ws.onFrame = (f) => {
      if (f.session_id !== sessionId || f.volatile) return;
      if (f.seq !== expect) return reject(new Error(`gap or reorder: seq ${f.seq}, expected ${expect}`));
      if (expect++ === toSeq) {
        clearTimeout(timer);
        ws.onFrame = null;
        resolve(performance.now());
      }
    };
  });
}

async function variant(h: Harness, subs: BenchWs[], sessionId: string, batch: number) {
  const before = (await h.head(sessionId))!.seq;
  const toSeq = before + EVENTS;
  const delivered = subs.map((ws) => receiveAll(ws, sessionId, before, toSeq));
  progress(`appending ${EVENTS} events, ${batch} per append, ${INFLIGHT} appends in flight, ${subs.length} subscribers`);
  const t0 = performance.now();
  const appended = await h.append(sessionId, EVENTS, { batch, inflight: INFLIGHT });
  const ends = await Promise.all(delivered);
  const totalMs = (subs.length ? Math.max(...ends) : performance.now()) - t0;
  const eps = Math.round((EVENTS / totalMs) * 1000);
  progress(`  ${eps} events/s end to end (appends done in ${appended.ms.toFixed(0)} ms)`);
  return {
    subscribers: subs.length,
    events_per_append: batch,
    appends_in_flight: INFLIGHT,
    events: EVENTS,
    append_ms: round(appended.ms),
    appended_events_per_s: Math.round((EVENTS / appended.ms) * 1000),
    all_delivered_ms: round(totalMs),
    events_per_s: eps,
    pass: eps >= TARGET_EVENTS_PER_S,
  };
}

runBench('append-fanout', 5 * 60_000, async (scope) => {
  const home = await scope.tempDir('home');
  const [cwd] = await scope.workspaceDirs(home, 1);
  const h = await startHarness(scope, home);
  const client = new ApiClient(h.baseUrl);
  scope.defer(() => client.close());
  const session = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd }, title: 'fan-out bench' });
  const subs: BenchWs[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const ws = await connectWs(h.baseUrl);
    scope.defer(() => ws.close());
    const ack = await ws.request('subscribe', { session_ids: [session.id] });
    if (ack.code !== 0) throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
    subs.push(ws);
  }
  const single = await variant(h, subs, session.id, 1);
  const batched = await variant(h, subs, session.id, 10);
  // The same appends to a session nobody follows: the journal's share of the cost, for comparison.
  const quiet = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd }, title: 'unfollowed' });
  const noPass = ({ pass: _, ...rest }: Awaited<ReturnType<typeof variant>>) => rest;
  const baseline = { single_event_appends: noPass(await variant(h, [], quiet.id, 1)), batched_appends: noPass(await variant(h, [], quiet.id, 10)) };
  return {
    description: 'durable session events appended through journal.append in the server process (bounded in-flight appends), timed from the first append to the last event received by every ws subscriber (subscribers in a separate process); events/s = events / that time',
    target: { events_per_s: TARGET_EVENTS_PER_S },
    subscribers: SUBSCRIBERS,
    single_event_appends: single,
    batched_appends: batched,
    no_subscriber_baseline: baseline,
    pass: single.pass && batched.pass,
  };
});
