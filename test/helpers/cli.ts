import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, daemonEnv } from './built.ts';

const run = promisify(execFile);

/** Runs `svc-code <args>` from the sources against `home` (`env` added): exit code, stdout, stderr. */
export function cli(home: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args], { env: daemonEnv(home, env), cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }));
}
