import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { emit, progress, type BenchResult } from './report.ts';

type Cleanup = () => Promise<void> | void;

/** Cleanups of the running script, last registered first (children stop before their dirs go). */
export class Scope {
  private cleanups: Cleanup[] = [];

  defer(fn: Cleanup): void {
    this.cleanups.push(fn);
  }

  /** A temp dir removed when the script ends, whatever the outcome. */
  async tempDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), `svc-code-bench-${prefix}-`));
    this.defer(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  /** `n` empty directories under `root`, used as workspace roots. */
  async workspaceDirs(root: string, n: number): Promise<string[]> {
    const dirs = Array.from({ length: n }, (_, i) => path.join(root, `ws-${String(i).padStart(2, '0')}`));
    await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })));
    return dirs;
  }

  async close(): Promise<void> {
    const list = this.cleanups.reverse();
    this.cleanups = [];
    for (const fn of list) {
      try {
        await fn();
      } catch (err) {
        progress(`cleanup failed: ${(err as Error).message}`);
      }
    }
  }
}

/**
 * Runs one benchmark: a hard time limit, cleanup on every exit path, and
 * exactly one JSON object on stdout (the result, or `{bench, error}`).
 */
export function runBench(name: string, limitMs: number, body: (scope: Scope) => Promise<Omit<BenchResult, 'bench'>>): void {
  const scope = new Scope();
  let finished = false;
  const finish = async (result: BenchResult, code: number) => {
    if (finished) return;
    finished = true;
    clearTimeout(watchdog);
    await scope.close();
    emit(result);
    process.exit(code);
  };
  const watchdog = setTimeout(() => {
    progress(`${name}: time limit of ${limitMs} ms reached, giving up`);
    void finish({ bench: name, error: `time limit of ${limitMs} ms reached` }, 1);
  }, limitMs);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => void finish({ bench: name, error: `interrupted by ${sig}` }, 1));
  }
  body(scope).then(
    (r) => finish({ bench: name, ...r }, 0),
    (err) => {
      progress(`${name} failed: ${(err as Error).stack ?? err}`);
      return finish({ bench: name, error: (err as Error).message ?? String(err) }, 1);
    },
  );
}
