import { execFile } from 'node:child_process';
import type { Clock } from '../lib/clock.ts';
import type { GitInfo } from '../../protocol/schemas/sessions-v2.ts';
import { childEnv } from '../lib/child-env.ts';

const TTL_MS = 60_000;
const GIT_TIMEOUT_MS = 2_000;
/** `gh pr view` asks the network: a short bound, and its answer is cached with the git state. */
const GH_TIMEOUT_MS = 3_000;

export const NO_GIT: GitInfo = { branch: null, detached: null, upstream: null, ahead: null, behind: null, dirty: null, pull_request: null };

/**
 * Branch and upstream state per directory for `include=git`, from one
 * `git status --porcelain=v2 --branch` run, cached 60 s per directory (failures
 * too, so a non-repo costs one spawn a minute). The branch's pull request comes from
 * the GitHub CLI when it is installed and authenticated (`gh pr view`, run beside
 * git status with a 3 s timeout); anything else (no gh, not logged in, no PR, a
 * timeout, not GitHub) reads as null.
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

async function readGitInfo(dir: string): Promise<GitInfo> {
  const [info, pr] = await Promise.all([readStatus(dir), readPullRequest(dir)]);
  return info.branch ? { ...info, pull_request: pr } : info;
}

type PullRequest = NonNullable<GitInfo['pull_request']>;

function readPullRequest(dir: string): Promise<PullRequest | null> {
  const env = childEnv({ GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' });
  return new Promise((resolve) => {
    execFile('gh', ['pr', 'view', '--json', 'number,state,url,isDraft'], { cwd: dir, timeout: GH_TIMEOUT_MS, env, maxBuffer: 1024 * 1024 }, (err, stdout) => {
      resolve(err ? null : parsePullRequest(stdout));
    });
  });
}

/** `gh pr view --json number,state,url,isDraft` to Part B's `{number, state, url}`; null for anything else. */
export function parsePullRequest(out: string): PullRequest | null {
  try {
    const j = JSON.parse(out) as { number?: unknown; state?: unknown; url?: unknown; isDraft?: unknown };
    const state = typeof j.state === 'string' ? j.state.toLowerCase() : '';
    if (typeof j.number !== 'number' || typeof j.url !== 'string' || !['open', 'merged', 'closed'].includes(state)) return null;
    return { number: j.number, url: j.url, state: j.isDraft === true && state === 'open' ? 'draft' : (state as PullRequest['state']) };
  } catch {
    return null;
  }
}

function readStatus(dir: string): Promise<GitInfo> {
  const args = ['-C', dir, 'status', '--porcelain=v2', '--branch', '--untracked-files=no', '--ignore-submodules=all'];
  // GIT_OPTIONAL_LOCKS=0: a read-only status must not take index.lock from the user's own git commands.
  const env = childEnv({ GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' });
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
