import { startHarness } from './lib/harness.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';
import { connectWs } from './lib/ws-client.ts';

const EVENTS = 1_000;
const RUNS = intEnv('BENCH_RUNS', 20);
const TARGET_MS = 20;

/** One replay: subscribe with the cursor, resolve when the last replayed frame arrives; returns [ack ms, last frame ms]. */
async function replayOnce(baseUrl: string, sessionId: string, cursor: { seq: number; epoch: string }): Promise<[number, number]> {
  const ws = await connectWs(baseUrl);
  try {
    let got = 0;
    let expectSeq = cursor.seq + 1;
    let ackMs = NaN;
    const t0 = performance.now();
    const done = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`replay incomplete after 30 s: ${got}/${EVENTS} frames`)), 30_000);
      ws.onFrame = (f) => {
        if (f.type === 'ack') ackMs = performance.now() - t0;
        if (f.type === 'resync_required') return reject(new Error(`resync_required: ${JSON.stringify(f.payload)}`));
        if (f.session_id !== sessionId || typeof f.seq !== 'number') return;
        if (f.seq !== expectSeq) return reject(new Error(`replay gap: got seq ${f.seq}, expected ${expectSeq}`));
        expectSeq++;
        if (++got === EVENTS) {
          clearTimeout(timer);
          resolve(performance.now() - t0);
        }
      };
    });
    const ack = ws.request('subscribe', { session_ids: [sessionId], cursors: { [sessionId]: cursor } });
    const [lastMs, a] = await Promise.all([done, ack]);
    if (a.code !== 0) throw new Error(`subscribe refused: ${JSON.stringify(a)}`);
    return [ackMs, lastMs];
  } finally {
    await ws.close();
  }
}

runBench('ws-replay', 3 * 60_000, async (scope) => {
  const home = await scope.tempDir('home');
  const [cwd] = await scope.workspaceDirs(home, 1);
  const h = await startHarness(scope, home);
  const client = new ApiClient(h.baseUrl);
  scope.defer(() => client.close());
  const session = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd }, title: 'replay bench' });
  const before = await h.head(session.id);
  if (!before) throw new Error('new session has no stream head');
  const { head } = await h.append(session.id, EVENTS, { batch: 100, inflight: 1 });
  // The cursor sits just before the 1,000 appended events (seq 1 is session.created; 1,000 is also the most a cursor may lag).
  const cursor = { seq: before.seq, epoch: head.epoch };
  progress(`appended ${EVENTS} events (head seq ${head.seq}); ${RUNS} replays from seq ${cursor.seq}`);
  const warm = await replayOnce(h.baseUrl, session.id, cursor);
  const acks: number[] = [];
  const lasts: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [a, l] = await replayOnce(h.baseUrl, session.id, cursor);
    acks.push(round(a));
    lasts.push(round(l));
  }
  const med = median(lasts);
  return {
    description: 'subscribe {cursors: {id: {seq, epoch}}} sent by a ws client (separate process from the server) to receipt of the 1,000th replayed durable frame; fresh connection per run (connect not timed)',
    target: { median_ms: TARGET_MS },
    events: EVENTS,
    runs: RUNS,
    median_ms: med,
    min_ms: Math.min(...lasts),
    max_ms: Math.max(...lasts),
    median_ack_ms: median(acks),
    samples_ms: lasts,
    first_replay_ms: round(warm[1]),
    pass: med < TARGET_MS,
  };
});
