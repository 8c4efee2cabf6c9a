import { spawn } from 'node:child_process';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';
import { bashTool } from '../src/tools/bash.ts';
import type { ToolContext } from '../src/tools/types.ts';

const SAMPLES = intEnv('BENCH_SAMPLES', 50);
const WARMUP = 5;
const TARGET_OVERHEAD_MS = 15;

function direct(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn('bash', ['-c', 'true'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    c.on('error', reject);
    c.on('close', () => resolve());
  });
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

runBench('tools-bash', 2 * 60_000, async (scope) => {
  const cwd = await scope.tempDir('bash');
  // A foreground run reads the session's cwd, the signal, the background config (auto-background off:
  // the default path, a plain run with a timeout) and progress; the rest of the context is unused by Bash.
  const ctx = {
    session: { cwd }, signal: new AbortController().signal, config: { background: { bash_auto_background_on_timeout: false } }, progress: () => undefined,
  } as unknown as ToolContext;
  const viaTool = () => bashTool.run({ command: 'true' }, ctx);
  for (let i = 0; i < WARMUP; i++) { await viaTool(); await direct(cwd); }
  progress(`${SAMPLES} paired samples of the Bash tool and a direct spawn of bash -c true`);
  const tool: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    tool.push(await time(viaTool));
    raw.push(await time(() => direct(cwd)));
  }
  const overhead = median(tool.map((t, i) => t - raw[i]!));
  return {
    description: 'Bash tool run of `true` with bash_auto_background_on_timeout off (own process group, merged output, timeout timer, result text) minus a direct '
      + 'spawn(\'bash\', [\'-c\', \'true\']), paired samples, median; tool called in-process (no journaling or engine)',
    target: { overhead_ms: TARGET_OVERHEAD_MS },
    samples: SAMPLES,
    tool_p50_ms: round(median(tool)),
    direct_p50_ms: round(median(raw)),
    overhead_p50_ms: round(overhead),
    pass: overhead < TARGET_OVERHEAD_MS,
  };
});
