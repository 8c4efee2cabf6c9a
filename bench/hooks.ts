import { spawn } from 'node:child_process';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round } from './lib/stats.ts';
import { HookRunner, type HookRunnerDeps } from '../src/hooks/runner.ts';

const SAMPLES = intEnv('BENCH_SAMPLES', 50);
const WARMUP = 5;

function direct(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn('/bin/sh', ['-c', 'true'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    c.on('error', reject);
    c.stdin.on('error', () => undefined);
    c.stdin.end('{}');
    c.on('close', () => resolve());
  });
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** A runner over a config holding `hooks` and a journal that only counts appends (no plugin installed). */
function runner(home: string, hooks: unknown[]) {
  let appended = 0;
  const deps = {
    home, config: { current: () => ({ hooks }) }, log: { warn: () => undefined },
    journal: { append: async () => { appended++; return []; } },
  } as unknown as HookRunnerDeps;
  return { r: new HookRunner(deps), appended: () => appended };
}

runBench('hooks', 2 * 60_000, async (scope) => {
  const home = await scope.tempDir('hooks-home');
  const cwd = await scope.tempDir('hooks-cwd');
  const site = { sessionId: 'session_bench', agentId: 'main', cwd, toolName: 'Bash', toolCallId: 'c1' };
  const input = { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_call_id: 'c1' };
  progress(`${SAMPLES} samples: PreToolUse with no hook configured, then with one hook (true) paired with a direct spawn of sh -c true`);
  const none = runner(home, []);
  for (let i = 0; i < WARMUP; i++) await none.r.run('PreToolUse', site, input);
  const idle: number[] = [];
  for (let i = 0; i < SAMPLES; i++) idle.push(await time(() => none.r.run('PreToolUse', site, input)));
  const one = runner(home, [{ event: 'PreToolUse', matcher: 'Bash', command: 'true' }]);
  for (let i = 0; i < WARMUP; i++) { await one.r.run('PreToolUse', site, input); await direct(cwd); }
  const hooked: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    hooked.push(await time(() => one.r.run('PreToolUse', site, input)));
    raw.push(await time(() => direct(cwd)));
  }
  if (one.appended() !== WARMUP + SAMPLES) throw new Error(`expected one hook.result per run, got ${one.appended()}`);
  const overhead = median(hooked.map((t, i) => t - raw[i]!));
  return {
    description: 'HookRunner.run(PreToolUse) in-process: with no hook configured (the cost every tool call pays: config entries parsed, the plugins folder listed), '
      + 'and with one `true` hook minus a direct spawn of /bin/sh -c true with the same stdin (paired samples, medians); the journal append is a no-op counter.',
    samples: SAMPLES,
    no_hook_p50_ms: round(median(idle)),
    one_hook_p50_ms: round(median(hooked)),
    direct_spawn_p50_ms: round(median(raw)),
    one_hook_overhead_p50_ms: round(overhead),
  };
});
