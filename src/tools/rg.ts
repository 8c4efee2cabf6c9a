import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { ToolError } from './types.ts';
import { childEnv } from '../lib/child-env.ts';

/** Runs ripgrep; exit 1 (no match) is a normal empty result, 2 with no output an error. */
export function runRg(args: string[], cwd: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(rgPath, args, { cwd, signal, maxBuffer: 256 * 1024 * 1024, env: childEnv() }, (err, stdout, stderr) => {
      const code = (err as { code?: unknown } | null)?.code;
      if (!err || code === 1) return resolve(stdout);
      if (code === 2 && stdout) return resolve(stdout);
      if (signal.aborted) return reject(new ToolError('aborted'));
      reject(new ToolError(`ripgrep failed: ${String(stderr || err.message).trim()}`));
    });
  });
}

/**
 * Runs ripgrep and hands its output over in text chunks as it arrives (so the caller's work
 * overlaps rg's walk, and a huge output need not be held whole); the same exit rules as runRg.
 * Resolves with the number of characters given.
 */
export function streamRg(args: string[], cwd: string, signal: AbortSignal, onChunk: (text: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, args, { cwd, signal, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
    let chars = 0;
    let stderr = '';
    let failed: unknown;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      chars += d.length;
      try {
        onChunk(d);
      } catch (err) {
        failed ??= err;
        child.kill();
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(-4_096)));
    child.once('error', (err) => (failed ??= err));
    child.once('close', (code) => {
      if (signal.aborted) return reject(new ToolError('aborted'));
      if (failed) return reject(failed instanceof ToolError ? failed : new ToolError(`ripgrep failed: ${(failed as Error).message}`));
      if (code === 0 || code === 1 || (code === 2 && chars)) return resolve(chars);
      reject(new ToolError(`ripgrep failed: ${stderr.trim() || `exit ${code}`}`));
    });
  });
}

/** Cuts text chunks into whole lines (a line split across two chunks is given once complete); `end` gives the last one. */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: string): void; end(): void } {
  let rest = '';
  return {
    push(chunk) {
      let start = 0;
      let text = chunk;
      if (rest) {
        text = rest + chunk;
        rest = '';
      }
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        onLine(text.slice(start, nl));
        start = nl + 1;
      }
      rest = text.slice(start);
    },
    end() {
      if (rest) onLine(rest);
      rest = '';
    },
  };
}

let filterDir: string | undefined;
const filterFiles = new Map<string, string>();

/**
 * An `--ignore-file` that keeps only files matching `glob` (relative to rg's cwd), or null when the
 * glob cannot be written as one gitignore line. Not `--glob`: an rg override whitelist would also
 * bring back gitignored files, while an ignore file ranks below .gitignore. The caller still
 * filters with its own matcher: this only lets rg skip the non-matching files early. The file also
 * excludes `.git`, so the caller passes no `-g !.git` (any override glob slows rg's walk).
 */
export function globOnlyIgnoreFile(glob: string): string | null {
  let g = glob.startsWith('./') ? glob.slice(2) : glob;
  // Gitignore syntax would read these differently (comment, negation, dir-only, trimmed, extglob,
  // negated classes, which picomatch reads its own way).
  if (!g || /[\r\n()]|\[[!^]/.test(g) || /^[#!]/.test(g) || g.endsWith('/') || g.endsWith(' ') || g.endsWith('\\')) return null;
  g = g.startsWith('/') ? g : `/${g}`;
  const cached = filterFiles.get(g);
  if (cached) return cached;
  // One small file per distinct glob for the process's life; past this many, go unfiltered.
  if (filterFiles.size >= 1_000) return null;
  if (!filterDir) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-code-rg-'));
    filterDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const file = path.join(filterDir, `${createHash('sha1').update(g).digest('hex')}.ignore`);
  // Ignore everything, keep every directory (so the walk goes on), keep the matching files, and
  // last (last match wins) drop .git, as the callers' `-g !.git` does, which this file replaces.
  writeFileSync(file, `*\n!*/\n!${g}\n.git\n`);
  filterFiles.set(g, file);
  return file;
}
