import { execFile } from 'node:child_process';
import { rgPath } from '@vscode/ripgrep';
import { ToolError } from './types.ts';

/** Runs ripgrep; exit 1 (no match) is a normal empty result, 2 with no output an error. */
export function runRg(args: string[], cwd: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(rgPath, args, { cwd, signal, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = (err as { code?: unknown } | null)?.code;
      if (!err || code === 1) return resolve(stdout);
      if (code === 2 && stdout) return resolve(stdout);
      if (signal.aborted) return reject(new ToolError('aborted'));
      reject(new ToolError(`ripgrep failed: ${String(stderr || err.message).trim()}`));
    });
  });
}
