import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';
import { bashTool } from '../src/tools/bash.ts';
import type { ToolContext } from '../src/tools/types.ts';
import { TaskService, type TaskDeps } from '../src/tasks/service.ts';
import { ulidIds } from '../src/lib/ids.ts';
import { systemClock } from '../src/lib/clock.ts';

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

/** WARMUP unmeasured pairs, then SAMPLES pairs (tool, direct) interleaved; the median of the differences. */
async function paired(cwd: string, viaTool: () => Promise<unknown>) {
  for (let i = 0; i < WARMUP; i++) { await viaTool(); await direct(cwd); }
  const tool: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    tool.push(await time(viaTool));
    raw.push(await time(() => direct(cwd)));
  }
  const overhead = median(tool.map((t, i) => t - raw[i]!));
  return { tool_p50_ms: round(median(tool)), direct_p50_ms: round(median(raw)), overhead_p50_ms: round(overhead), pass: overhead < TARGET_OVERHEAD_MS };
}

/**
 * The tasks service over the little a foreground task uses: its home (the log file goes under
 * tasks/), the clock, the id source and volatile frames (a foreground task journals nothing and
 * sends no note).
 */
function taskService(home: string): TaskService {
  const journal = Object.assign(new EventEmitter(), { append: async () => [] });
  const bus = { publish: () => undefined };
  return new TaskService({ home, journal, bus, clock: systemClock, ids: ulidIds() } as unknown as TaskDeps);
}

runBench('tools-bash', 2 * 60_000, async (scope) => {
  const cwd = await scope.tempDir('bash');
  const home = await scope.tempDir('bash-home');
  const config = (autoBackground: boolean) => ({
    background: { bash_auto_background_on_timeout: autoBackground, bash_task_timeout_s: 600, kill_grace_period_ms: 2000, max_running_tasks: 4 },
  });
  // A foreground run reads the session's cwd (and id for a task), the signal, the background config and
  // progress; the rest of the context is unused by Bash.
  const ctx = (autoBackground: boolean) => ({
    deps: { tasks: taskService(home) }, session: { id: 'session_bench', cwd }, signal: new AbortController().signal, config: config(autoBackground), progress: () => undefined,
  } as unknown as ToolContext);
  progress(`${SAMPLES} paired samples of the Bash tool and a direct spawn of bash -c true, auto-background on (the default) then off`);
  const on = ctx(true);
  const off = ctx(false);
  // The task path really ran the command and followed its output (not a fast failure).
  for (const c of [on, off]) {
    const out = await bashTool.run({ command: 'echo bench' }, c);
    if (out !== 'bench\n[exit code 0]') throw new Error(`unexpected Bash result: ${JSON.stringify(out)}`);
  }
  const viaTask = await paired(cwd, () => bashTool.run({ command: 'true' }, on));
  const plain = await paired(cwd, () => bashTool.run({ command: 'true' }, off));
  progress(`default (task) path: +${viaTask.overhead_p50_ms} ms; auto-background off: +${plain.overhead_p50_ms} ms`);
  return {
    description: 'Bash tool run of `true` minus a direct spawn(\'bash\', [\'-c\', \'true\']), paired samples, median, tool called in-process (no engine). '
      + 'default_path: bash_auto_background_on_timeout on (the default): the command runs as a foreground task of the tasks service (its own process '
      + 'group writing to a log file under <home>/tasks/, followed by a FileFollower, adoptable into the background); auto_background_off: a plain run '
      + '(own process group, merged output piped back, timeout timer).',
    target: { overhead_ms: TARGET_OVERHEAD_MS },
    samples: SAMPLES,
    default_path: viaTask,
    auto_background_off: plain,
    // Kept for the earlier shape of this result (the auto-background-off path).
    tool_p50_ms: plain.tool_p50_ms,
    direct_p50_ms: plain.direct_p50_ms,
    overhead_p50_ms: plain.overhead_p50_ms,
    pass: viaTask.pass && plain.pass,
  };
});
