import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { daemonEnv, launch, ROOT, startScript } from '../helpers/built.ts';
import { scratchDir } from '../helpers/fs.ts';
import { api } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';

// The search worker's own young generation (src/search/backend.ts) against the daemon's `--max-semi-space-size=8`
// (package.json's start flags): V8 applies that flag to every isolate it configures, after a worker's resourceLimits,
// so startServer clears it for isolates created later (src/app/worker-heap.ts). Checked on a real daemon started
// with the start script's node flags, through GET /api/v1/debug/memory.
//
// A thread's V8 heap limit is its old generation plus three semi-spaces (two, and the young large-object space of
// the same size). The worker's old generation takes the same default as the main thread's, so the two limits differ
// by 3 x (8 - the worker's semi-space): 3 x (8 - 2) MB with the default 6 MB young generation (2 MB semi-spaces).
// Without the flag cleared the worker gets 8 MB semi-spaces too and the difference is 0.

const MiB = 2 ** 20;

/** Starts the daemon with the start script's node flags, makes it start its search worker, and reads its memory. */
async function workerMemory(t: ExecutionContext, env: Record<string, string> = {}) {
  const { flags } = startScript();
  t.true(flags.includes('--max-semi-space-size=8'), `start flags: ${flags.join(' ')}`);
  const home = await scratchDir(t, 'svc-worker-heap-');
  const argv = [process.execPath, ...flags, '--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve', '--port', '0', '--debug-endpoints'];
  const d = await launch(argv, { cwd: ROOT, env: daemonEnv(home, env), listenMs: 60_000 });
  t.teardown(() => d.stop());
  // The worker starts with the first query (no snapshot, no messages yet).
  const found = await api(d.baseUrl, 'POST', '/api/v1/search', { query: 'anything' });
  t.is(found.code, 0, JSON.stringify(found));
  let mem: any;
  await until(async () => {
    mem = (await api(d.baseUrl, 'GET', '/api/v1/debug/memory')).data;
    return mem?.search?.in === 'worker' && typeof mem.search.heap_limit_mb === 'number';
  }, 30_000, 'the search worker to answer its stats');
  const mainLimitMb = mem.heap.heap_size_limit / 1e6;
  const mainNewSpace = mem.heap_spaces.find((s: { name: string }) => s.name === 'new_space');
  return { search: mem.search, mainLimitMb, mainNewSpaceBytes: mainNewSpace.size as number };
}

/** MB of young generation the worker has fewer of than the main thread, from the two heap limits (decimal MB in stats). */
const youngDeficitMiB = (m: { search: { heap_limit_mb: number }; mainLimitMb: number }) => ((m.mainLimitMb - m.search.heap_limit_mb) * 1e6) / MiB;

test('the search worker has its 6 MB young generation while the daemon keeps 8 MB semi-spaces', async (t) => {
  t.timeout(120_000);
  const m = await workerMemory(t);
  const deficit = youngDeficitMiB(m);
  t.true(Math.abs(deficit - 3 * (8 - 2)) < 0.5, `worker's young generation ${deficit.toFixed(2)} MiB smaller than the main thread's (want 18: 2 MB semi-spaces against 8)`);
  t.true(m.search.new_space_mb <= 6.3, `worker new_space ${m.search.new_space_mb} MB`);
  // The main thread's young generation can grow to two 8 MB semi-spaces: its new space never exceeds 16 MiB.
  t.true(m.mainNewSpaceBytes <= 16 * MiB, `main new_space ${m.mainNewSpaceBytes} bytes`);
});

test('SVC_CODE_SEARCH_WORKER_YOUNG_MB sizes the worker young generation', async (t) => {
  t.timeout(120_000);
  const m = await workerMemory(t, { SVC_CODE_SEARCH_WORKER_YOUNG_MB: '3' });
  const deficit = youngDeficitMiB(m);
  t.true(Math.abs(deficit - 3 * (8 - 1)) < 0.5, `worker's young generation ${deficit.toFixed(2)} MiB smaller than the main thread's (want 21: 1 MB semi-spaces against 8)`);
});
