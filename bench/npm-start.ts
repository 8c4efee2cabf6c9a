import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, startDaemon, startWithNpm, type Daemon } from './lib/daemon.ts';
import { runBench, type Scope } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';

const RUNS = intEnv('BENCH_RUNS', 5);
const TARGET_MS = 1_000;

type Way = 'npm_start' | 'node_dist';
const LAUNCH: Record<Way, (scope: Scope, home: string) => Promise<Daemon>> = {
  npm_start: (scope, home) => startWithNpm(scope, home),
  node_dist: (scope, home) => startDaemon(scope, home),
};

runBench('npm-start', 5 * 60_000, async (scope) => {
  // The figure is for a current build: a stale one would be rebuilt first, which is the point of the check.
  const check = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`${check.stderr.trim()}: run npm run build first`);
  const samples: Record<Way, { listening: number[]; healthz: number[] }> = {
    npm_start: { listening: [], healthz: [] },
    node_dist: { listening: [], healthz: [] },
  };
  // One unmeasured round first (page cache), then the two ways alternate so both see the same machine load.
  for (let i = 0; i <= RUNS; i++) {
    for (const way of Object.keys(LAUNCH) as Way[]) {
      const d = await LAUNCH[way](scope, await scope.tempDir('home'));
      await d.stop();
      progress(`  ${way} run ${i}: listening ${d.listeningMs.toFixed(0)} ms, healthz ${d.healthzMs.toFixed(0)} ms`);
      if (i === 0) continue;
      samples[way].listening.push(round(d.listeningMs));
      samples[way].healthz.push(round(d.healthzMs));
    }
  }
  const summary = (way: Way) => ({
    median_healthz_ms: median(samples[way].healthz),
    median_listening_ms: median(samples[way].listening),
    healthz_ms: samples[way].healthz,
    listening_ms: samples[way].listening,
  });
  const npm = summary('npm_start');
  const node = summary('node_dist');
  return {
    description: 'spawn to the first 200 of GET /api/v1/healthz, empty home, build current: `npm start -- --port 0` in the package root (npm, then scripts/start.mjs: the build check, then dist/src/cli/main.js in the same process) against `node dist/src/cli/main.js serve --port 0`, alternating',
    target: { npm_start_median_healthz_ms: TARGET_MS },
    runs: RUNS,
    npm_start: npm,
    node_dist: node,
    npm_overhead_ms: round(npm.median_healthz_ms - node.median_healthz_ms),
    pass: npm.median_healthz_ms < TARGET_MS,
  };
});
