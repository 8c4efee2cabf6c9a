import { execFile } from 'node:child_process';
import type { Clock } from '../lib/clock.ts';
import type { GitInfo } from '../../protocol/schemas/sessions-v2.ts';

const TTL_MS = 60_000;
const GIT_TIMEOUT_MS = 2_000;

export const NO_GIT: GitInfo = { branch: null, detached: null, upstream: null, ahead: null, behind: null, dirty: null, pull_request: null };

/**
 * Branch and upstream state per directory for `include=git`, from one
 * `git status --porcelain=v2 --branch` run, cached 60 s per directory (failures
 * too, so a non-repo costs one spawn a minute). Pull requests need the network
 * and are never looked up.
 */
export class GitInfoCache {
  private entries = new Map<string, { at: number; info: Promise<GitInfo> }>();

  constructor(private readonly clock: Clock) {}

  get(dir: string): Promise<GitInfo> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(dir);
    if (hit && now - hit.at < TTL_MS) return hit.info;
    this.prune(now);
    const info = readGitInfo(dir);
    this.entries.set(dir, { at: now, info });
    return info;
  }

  private prune(now: number): void {
    for (const [dir, e] of this.entries) if (now - e.at >= TTL_MS) this.entries.delete(dir);
  }
}

function readGitInfo(dir: string): Promise<GitInfo> {
  const args = ['-C', dir, 'status', '--porcelain=v2', '--branch', '--untracked-files=no', '--ignore-submodules=all'];
  // GIT_OPTIONAL_LOCKS=0: a read-only status must not take index.lock from the user's own git commands.
  const env = { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  return new Promise((resolve) => {
    execFile('git', args, { timeout: GIT_TIMEOUT_MS, env, maxBuffer: 4 * 1024 * 1024 }, (err, stdout) => {
      resolve(err ? NO_GIT : parseStatus(stdout));
    });
  });
}

/** Parses the `# branch.*` headers of porcelain v2; any other line is a changed tracked file. */
export function parseStatus(out: string): GitInfo {
  const info: GitInfo = { ...NO_GIT, detached: false, dirty: false };
  for (const line of out.split('\n')) {
    if (!line) continue;
    if (!line.startsWith('# ')) {
      info.dirty = true;
      continue;
    }
    const [name, ...rest] = line.slice(2).split(' ');
    const value = rest.join(' ');
    if (name === 'branch.head') {
      info.detached = value === '(detached)';
      info.branch = info.detached ? null : value;
    } else if (name === 'branch.upstream') {
      info.upstream = value;
    } else if (name === 'branch.ab') {
      const m = /^\+(\d+) -(\d+)$/.exec(value);
      if (m) [info.ahead, info.behind] = [Number(m[1]), Number(m[2])];
    }
  }
  return info;
}
