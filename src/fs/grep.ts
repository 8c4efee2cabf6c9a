import { spawn } from 'node:child_process';
import { rgPath } from '@vscode/ripgrep';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import { GrepCollector, type GrepFile, type GrepLimits } from './grep-collect.ts';
import { childEnv } from '../lib/child-env.ts';

export const DEFAULT_GREP_TIMEOUT_MS = 10_000;

export interface GrepOptions {
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
  includeGlobs: string[];
  excludeGlobs: string[];
  followGitignore: boolean;
  limits: GrepLimits;
  timeoutMs: number;
  /** Aborted when the client goes away: ripgrep is stopped. */
  signal?: AbortSignal;
}

export interface GrepResult {
  files: GrepFile[];
  files_scanned: number;
  truncated: boolean;
  elapsed_ms: number;
}

/**
 * ripgrep arguments. Hidden files are searched and `.git` is not (as fs:search
 * lists them); `.gitignore` applies inside and outside git repositories;
 * `-m max+1` lets the collector see that a file had more matches than allowed.
 */
export function rgArgs(o: GrepOptions): string[] {
  const args = ['--json', '--no-config', '--hidden', '--no-require-git'];
  if (!o.regex) args.push('--fixed-strings');
  args.push(o.caseSensitive ? '--case-sensitive' : '--ignore-case');
  args.push('--max-count', String(o.limits.maxMatchesPerFile + 1));
  args.push('--context', String(o.limits.contextLines));
  if (!o.followGitignore) args.push('--no-ignore');
  for (const g of o.includeGlobs) args.push('--glob', g);
  for (const g of o.excludeGlobs) args.push('--glob', `!${g}`);
  // Last, so that no include glob can bring `.git` back (later globs win).
  args.push('--glob', '!.git', '--regexp', o.pattern, '--', '.');
  return args;
}

/** Runs ripgrep in `root`; 41305 past the deadline, 40001 for a pattern or glob ripgrep refuses. */
export function runGrep(root: string, o: GrepOptions): Promise<GrepResult> {
  const started = performance.now();
  const collector = new GrepCollector(o.limits);
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, rgArgs(o), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
    let settled = false;
    let rest = '';
    let stderr = '';
    const timedOut = () => new ApiError(Codes.SEARCH_TIMEOUT, `grep timed out after ${o.timeoutMs} ms`, { details: { timeout_ms: o.timeoutMs } });
    const done = (err: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null) child.kill();
      if (err) return reject(err);
      // ripgrep's end can be read in the same loop turn as an overdue deadline, before the timer runs.
      if (performance.now() - started > o.timeoutMs) return reject(timedOut());
      collector.finish();
      const files = collector.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      resolve({ files, files_scanned: collector.filesScanned, truncated: collector.truncated, elapsed_ms: Math.round(performance.now() - started) });
    };
    const timer = setTimeout(() => done(timedOut()), o.timeoutMs);
    const onAbort = () => done(new Error('grep aborted: client went away'));
    o.signal?.addEventListener('abort', onAbort);
    /** One `--json` line; false once the search should stop. */
    const handle = (line: string): boolean => {
      if (!line) return true;
      try {
        return collector.feed(JSON.parse(line));
      } catch (err) {
        done(new Error(`unreadable ripgrep output: ${(err as Error).message}`));
        return false;
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (settled) return;
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (!handle(line)) return done(null);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(-8192)));
    child.once('error', (err) => done(err));
    child.once('close', (code) => {
      if (!settled && !handle(rest)) return done(null);
      // Exit 2 before any summary: ripgrep refused its arguments (bad regex or glob).
      if (code === 2 && !collector.sawSummary) return done(refusal(stderr, o));
      if (code !== 0 && code !== 1 && code !== 2) return done(new Error(`rg ended with ${code ?? 'a signal'}: ${stderr.trim()}`));
      done(null);
    });
  });
}

function refusal(stderr: string, o: GrepOptions): ApiError {
  const message = stderr.replace(/^rg: /gm, '').trim() || 'ripgrep refused the search';
  const quoted = (g: string) => message.includes(`'${g}'`) || message.includes(`'!${g}'`);
  const field = !/glob/i.test(message) ? 'pattern' : o.excludeGlobs.some(quoted) ? 'exclude_globs' : 'include_globs';
  return validationError([{ field, message }], `invalid ${field === 'pattern' ? 'pattern' : 'glob'}: ${message.split('\n')[0]}`);
}
