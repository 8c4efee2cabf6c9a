import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { ROOT, startDaemon, stopChild } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench, type Scope } from './lib/lifecycle.ts';
import { populatedHome } from './lib/populate.ts';
import { intEnv, progress } from './lib/report.ts';

const SESSIONS = intEnv('BENCH_SESSIONS', 10_000);
const SETTLE_MS = 2_000;
const TARGET_MB = 150;
/** When to re-read RSS after the list call, in ms. */
const LATER_MS = [2_000, 10_000];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS of a bare `node [args] -e <idle>` after the settle time: the floor the daemon stands on. */
async function floor(scope: Scope, args: string[]): Promise<number> {
  const child = spawn(process.execPath, [...args, '-e', `setTimeout(() => {}, ${SETTLE_MS * 5})`], { cwd: ROOT, stdio: 'ignore' });
  scope.defer(() => stopChild(child));
  await sleep(SETTLE_MS);
  const { rss_mb } = await memory(child.pid!);
  await stopChild(child);
  return rss_mb;
}

/** VmRSS and VmHWM (peak) of a process, in MB, from /proc/<pid>/status. */
async function memory(pid: number): Promise<{ rss_mb: number; peak_rss_mb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const mb = (x: number) => Math.round((x / 1024) * 10) / 10;
  return { rss_mb: mb(kb('VmRSS')), peak_rss_mb: mb(kb('VmHWM')) };
}

runBench('rss', 5 * 60_000, async (scope) => {
  if (process.platform !== 'linux') throw new Error('rss reads /proc/<pid>/status: Linux only');
  progress('runtime floor: bare node, and node --import tsx');
  const runtime = { node_mb: await floor(scope, []), node_with_tsx_mb: await floor(scope, ['--import', 'tsx']) };
  progress('idle daemon on an empty home');
  const idleDaemon = await startDaemon(scope, await scope.tempDir('empty'));
  await sleep(SETTLE_MS);
  const idle = await memory(idleDaemon.pid);
  await idleDaemon.stop();

  const pop = await populatedHome(scope, SESSIONS);
  progress(`fresh daemon on the home with ${SESSIONS} sessions`);
  const d = await startDaemon(scope, pop.home);
  const client = new ApiClient(d.baseUrl);
  scope.defer(() => client.close());
  const page = await client.ok('GET', '/api/v2/sessions?page_size=50');
  if (page.total !== SESSIONS - pop.archived) throw new Error(`v2 list total ${page.total}, expected ${SESSIONS - pop.archived}`);
  const afterList = await memory(d.pid);
  // RSS moves for a few seconds after the first list (GC, heap growth): sample a window and judge by its highest reading.
  const later: Record<string, number> = {};
  let waited = 0;
  for (const at of LATER_MS) {
    await sleep(at - waited);
    waited = at;
    later[at] = (await memory(d.pid)).rss_mb;
  }
  const highest = Math.max(afterList.rss_mb, ...Object.values(later));
  const { peak_rss_mb } = await memory(d.pid);
  await d.stop();
  return {
    description: 'VmRSS of a spawned `svc-code serve` daemon (built dist/, as npm start runs it), from /proc/<pid>/status',
    target: { rss_mb_with_sessions: TARGET_MB },
    runtime_floor: { note: `an idle script, ${SETTLE_MS} ms after start`, ...runtime },
    idle: { note: `empty home, ${SETTLE_MS} ms after healthz`, ...idle },
    with_sessions: {
      sessions: SESSIONS,
      archived: pop.archived,
      note: 'fresh daemon on the populated home: rss_mb right after one GET /api/v2/sessions?page_size=50, then re-read after the listed ms',
      rss_mb: afterList.rss_mb,
      rss_mb_after_ms: later,
      highest_rss_mb: highest,
      peak_rss_mb,
    },
    pass: highest < TARGET_MB,
  };
});
