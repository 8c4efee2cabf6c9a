import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { summarize } from './lib/stats.ts';

const SESSIONS = intEnv('BENCH_SESSIONS', 10_000);
const WINDOW = intEnv('BENCH_WINDOW', 1_000);
const WORKSPACES = 20;
const TARGET_P50_MS = 2;
/** "Flat": the last window's p50 stays within this factor of the first window's. */
const FLAT_FACTOR = 1.5;

runBench('session-create', 5 * 60_000, async (scope) => {
  const home = await scope.tempDir('home');
  const dirs = await scope.workspaceDirs(await scope.tempDir('roots'), WORKSPACES);
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl);
  scope.defer(() => client.close());
  // Register the workspaces first so every measured create is the same operation: a session in a known root.
  for (const cwd of dirs) await client.ok('POST', '/api/v1/workspaces', { root: cwd });
  progress(`creating ${SESSIONS} sessions one at a time over ${WORKSPACES} workspaces`);
  const samples: number[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const body = { metadata: { cwd: dirs[i % dirs.length] }, title: `bench session ${i}` };
    const t0 = performance.now();
    await client.ok('POST', '/api/v1/sessions', body);
    samples.push(performance.now() - t0);
    if ((i + 1) % 2_000 === 0) progress(`  ${i + 1} created`);
  }
  const windows = [];
  for (let from = 0; from < samples.length; from += WINDOW) {
    windows.push({ sessions_before: from, ...summarize(samples.slice(from, from + WINDOW)) });
  }
  const first = windows[0];
  const last = windows[windows.length - 1];
  const flat = last.p50 <= first.p50 * FLAT_FACTOR;
  return {
    description: 'POST /api/v1/sessions {metadata.cwd, title}, one request in flight, keep-alive, against a spawned daemon; latency per window of sessions created',
    target: { p50_ms: TARGET_P50_MS, flat: `last window p50 <= ${FLAT_FACTOR} x first window p50` },
    sessions: SESSIONS,
    overall: summarize(samples),
    windows,
    pass: windows.every((w) => w.p50 < TARGET_P50_MS) && flat,
    flat,
  };
});
