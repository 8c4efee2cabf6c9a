import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp directory to use as a project root. */
export function tempDir(prefix = 'svc-code-ws-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** A fresh temp directory removed when the test ends. */
export async function scratchDir(t: { teardown(fn: () => unknown): void }, prefix?: string): Promise<string> {
  const dir = await tempDir(prefix);
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes each file (path relative to `root` -> content; a list: `x\n` each), making its directories. */
export async function writeFiles(root: string, files: Record<string, string | Buffer> | string[]): Promise<void> {
  const entries = Array.isArray(files) ? files.map((f) => [f, 'x\n'] as const) : Object.entries(files);
  for (const [rel, content] of entries) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
}

/** Runs git in `cwd` with a throwaway identity and no signing; returns its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=n', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
