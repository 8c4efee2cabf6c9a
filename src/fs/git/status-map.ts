import { execFile } from 'node:child_process';
import type { GitFileStatus } from '../entry.ts';
import { childEnv } from '../../lib/child-env.ts';

const GIT_TIMEOUT_MS = 5_000;
const MAX_BUFFER = 64 * 1024 * 1024;
// A read-only status must not take index.lock from the user's own git commands.
const GIT_VARS = { GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };

function git(cwd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: GIT_TIMEOUT_MS, env: childEnv(GIT_VARS), maxBuffer: MAX_BUFFER }, (err, stdout) => resolve(err ? null : stdout));
  });
}

const CONFLICTS = new Set(['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']);

/** One porcelain v1 XY code -> the entry's git_status. */
export function statusFromXY(xy: string): GitFileStatus {
  if (xy === '??') return 'untracked';
  if (xy === '!!') return 'ignored';
  if (CONFLICTS.has(xy)) return 'conflicted';
  if (xy.includes('R')) return 'renamed';
  if (xy[0] === 'A' || xy[0] === 'C') return 'added';
  if (xy.includes('D')) return 'deleted';
  return 'modified';
}

/** git_status of workspace paths, from one `git status` of a directory. */
export class GitStatusMap {
  /** Keys relative to the directory; collapsed untracked/ignored directories end with `/`. */
  private readonly byPath = new Map<string, GitFileStatus>();
  /** Directories holding a changed (not ignored) path. */
  private readonly dirty = new Set<string>();

  add(rel: string, status: GitFileStatus): void {
    this.byPath.set(rel, status);
    if (status === 'ignored') return;
    const parts = rel.replace(/\/$/, '').split('/');
    for (let i = 1; i < parts.length; i++) this.dirty.add(parts.slice(0, i).join('/'));
  }

  /**
   * Status of a path relative to the directory (`/`-separated). A path inside
   * a collapsed untracked or ignored directory inherits its status; a
   * directory holding changes reads `modified`; anything else is `clean`.
   */
  statusOf(rel: string, isDir: boolean): GitFileStatus {
    if (rel === '.' || rel === '') return this.dirty.size ? 'modified' : 'clean';
    const own = this.byPath.get(isDir ? `${rel}/` : rel) ?? this.byPath.get(rel);
    if (own) return own;
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const hit = this.byPath.get(`${parts.slice(0, i).join('/')}/`);
      if (hit) return hit;
    }
    return isDir && this.dirty.has(rel) ? 'modified' : 'clean';
  }
}

/** Parses `git status --porcelain=v1 -z` output, keeping paths under `prefix` (made relative to it). */
export function parsePorcelainZ(out: string, prefix: string): GitStatusMap {
  const map = new GitStatusMap();
  const fields = out.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.length < 4) continue;
    const xy = f.slice(0, 2);
    const file = f.slice(3);
    // Renames and copies carry the original path as the next field.
    if (xy[0] === 'R' || xy[0] === 'C' || xy[1] === 'R' || xy[1] === 'C') i++;
    if (!file.startsWith(prefix)) continue;
    const rel = file.slice(prefix.length);
    if (rel) map.add(rel, statusFromXY(xy));
  }
  return map;
}

/**
 * Git status of everything under `dir` (tracked changes, untracked and
 * ignored paths), or null when `dir` is not inside a git work tree or git is
 * unavailable (entries then carry no git_status).
 */
export async function gitStatusMap(dir: string): Promise<GitStatusMap | null> {
  const [prefixOut, statusOut] = await Promise.all([
    git(dir, ['rev-parse', '--show-prefix']),
    git(dir, ['status', '--porcelain=v1', '-z', '--ignored', '--', '.']),
  ]);
  if (prefixOut === null || statusOut === null) return null;
  // Porcelain paths are relative to the repository top level, whatever the cwd.
  return parsePorcelainZ(statusOut, prefixOut.trim());
}
