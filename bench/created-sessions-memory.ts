import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { startDaemon } from './lib/daemon.ts';
import { summarizeHeapSnapshot } from './lib/heap-summary.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { populate } from './lib/populate.ts';
import { intEnv, progress } from './lib/report.ts';

const SESSIONS = intEnv('BENCH_SESSIONS', 10_000);
const WORKSPACES = 20;
const SETTLE_MS = 2_000;
const TARGET_MB = 150;
const LATER_MS = [2_000, 10_000];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** VmRSS of a process in MB, and its anonymous / file-backed shares, from /proc. */
async function rss(pid: number) {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? NaN);
  const m = (x: number) => Math.round((x / 1024) * 10) / 10;
  return { rss_mb: m(kb('Rss')), anon_mb: m(kb('Anonymous')), file_mb: m(kb('Rss') - kb('Anonymous')) };
}

/** The daemon's own view (GET /api/v1/debug/memory): JS heap, external memory, heap spaces. */
async function heapStats(client: ApiClient) {
  const d = await client.ok('GET', '/api/v1/debug/memory');
  return {
    node_flags: d.exec_argv as string[],
    heap_used_mb: mb(d.process.heapUsed),
    heap_total_mb: mb(d.process.heapTotal),
    external_mb: mb(d.process.external),
    array_buffers_mb: mb(d.process.arrayBuffers),
    /** Per V8 space: [committed, used] MB (committed is what counts in RSS). */
    spaces_mb: Object.fromEntries(d.heap_spaces.filter((s: any) => s.size > 0).map((s: any) => [s.name, [mb(s.size), mb(s.used)]])),
  };
}

/** SIGUSR2 makes the daemon (started with --heapsnapshot-signal) write a snapshot into `dir`; waits for it. */
async function snapshot(pid: number, dir: string, client: ApiClient): Promise<string> {
  const before = new Set(await readdir(dir));
  process.kill(pid, 'SIGUSR2');
  // The snapshot is written on the main thread: once the daemon answers again, the file is complete.
  for (let i = 0; i < 600; i++) {
    await sleep(100);
    const file = (await readdir(dir)).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!file) continue;
    await client.ok('GET', '/api/v1/meta');
    const full = path.join(dir, file);
    const s1 = (await stat(full)).size;
    await sleep(200);
    if ((await stat(full)).size === s1) return full;
  }
  throw new Error('no heap snapshot written');
}

runBench('created-sessions-memory', 5 * 60_000, async (scope) => {
  if (process.platform !== 'linux') throw new Error('reads /proc/<pid>: Linux only');
  const home = await scope.tempDir('home');
  const diag = await scope.tempDir('heap');
  const dirs = await scope.workspaceDirs(await scope.tempDir('roots'), WORKSPACES);
  const d = await startDaemon(scope, home, {}, {
    nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${diag}`],
    serveArgs: ['--debug-endpoints'],
  });
  const client = new ApiClient(d.baseUrl);
  scope.defer(() => client.close());
  await sleep(SETTLE_MS);
  const idle = await rss(d.pid);
  const idleHeap = await heapStats(client);
  progress(`idle: ${idle.rss_mb} MB; creating ${SESSIONS} sessions over ${WORKSPACES} workspaces`);
  const pop = await populate(client, { count: SESSIONS, dirs });
  const afterCreate = await rss(d.pid);
  const afterCreateHeap = await heapStats(client);
  progress(`after the last create: ${afterCreate.rss_mb} MB (${pop.ms} ms to create)`);
  const later: Record<string, number> = {};
  let waited = 0;
  for (const at of LATER_MS) {
    await sleep(at - waited);
    waited = at;
    later[at] = (await rss(d.pid)).rss_mb;
  }
  progress('heap snapshot');
  const heap = await summarizeHeapSnapshot(await snapshot(d.pid, diag, client));
  const afterSnapshot = await rss(d.pid);
  await d.stop();
  return {
    description: `VmRSS of one spawned daemon (built dist/, as npm start runs it) right after it created ${SESSIONS} sessions over HTTP (POST /api/v1/sessions, 16 in flight, ${WORKSPACES} workspaces), from /proc/<pid>/smaps_rollup; then its heap`,
    target: { rss_mb_after_last_create: TARGET_MB },
    sessions: SESSIONS,
    create_ms: pop.ms,
    idle: { note: `empty home, ${SETTLE_MS} ms after healthz`, ...idle, heap: idleHeap },
    after_last_create: { ...afterCreate, heap: afterCreateHeap },
    rss_mb_after_ms: later,
    heap_note: 'heap: GET /api/v1/debug/memory (process.memoryUsage and V8 heap spaces) right after the RSS reading',
    heap_snapshot: { note: 'self sizes of live objects (a snapshot collects garbage first)', ...heap },
    rss_mb_after_snapshot: afterSnapshot.rss_mb,
    pass: afterCreate.rss_mb < TARGET_MB,
  };
});
