import { open } from 'node:fs/promises';
import path from 'node:path';
import { git, openRepo, type Repo } from './git.ts';

export type GitEntryStatus = 'modified' | 'added' | 'deleted' | 'renamed' | 'untracked' | 'ignored' | 'conflicted';

export interface GitStatusResult {
  /** null when HEAD is detached. */
  branch: string | null;
  ahead: number;
  behind: number;
  entries: Record<string, GitEntryStatus>;
  additions: number;
  deletions: number;
  /** Always null: looking a pull request up needs the network. */
  pullRequest: null;
}

/** Untracked files counted into `additions`: at most this many, each at most UNTRACKED_MAX_BYTES, text only. */
export const UNTRACKED_MAX_FILES = 2000;
export const UNTRACKED_MAX_BYTES = 2 ** 20;

/**
 * `git status` of the repository holding `cwd`, restricted to `pathspecs`
 * (relative to `cwd`; `.` = everything under it). Entry paths are relative to
 * `cwd`. additions/deletions: `git diff --numstat` of the work tree against
 * HEAD (staged and unstaged together; binary files count 0) plus the line
 * count of each untracked text file.
 */
export async function gitStatus(cwd: string, pathspecs: string[]): Promise<GitStatusResult> {
  const repo = await openRepo(cwd);
  const [status, numstat] = await Promise.all([
    git(cwd, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--ignored=matching', '--', ...pathspecs]),
    git(cwd, ['diff', '--numstat', '-z', '--no-ext-diff', repo.base, '--', ...pathspecs]),
  ]);
  const parsed = parseStatus(status.stdout, repo);
  const lines = sumNumstat(numstat.stdout);
  const untracked = Object.keys(parsed.entries).filter((p) => parsed.entries[p] === 'untracked');
  const extra = await countLines(cwd, untracked.slice(0, UNTRACKED_MAX_FILES));
  return { ...parsed, additions: lines.additions + extra, deletions: lines.deletions, pullRequest: null };
}

function parseStatus(out: string, repo: Repo): Pick<GitStatusResult, 'branch' | 'ahead' | 'behind' | 'entries'> {
  const res = { branch: null as string | null, ahead: 0, behind: 0, entries: {} as Record<string, GitEntryStatus> };
  const records = out.split('\0');
  const put = (repoPath: string, st: GitEntryStatus) => {
    const p = repoPath.replace(/\/$/, '');
    if (p.startsWith(repo.prefix)) res.entries[p.slice(repo.prefix.length)] = st;
  };
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r.startsWith('# branch.head ')) {
      const head = r.slice('# branch.head '.length);
      res.branch = head === '(detached)' ? null : head;
    } else if (r.startsWith('# branch.ab ')) {
      const m = /^# branch\.ab \+(\d+) -(\d+)/.exec(r);
      if (m) [res.ahead, res.behind] = [Number(m[1]), Number(m[2])];
    } else if (r.startsWith('1 ')) {
      put(field(r, 8), ordinary(r.slice(2, 4)));
    } else if (r.startsWith('2 ')) {
      put(field(r, 9), r[2] === 'C' ? 'added' : 'renamed');
      i++; // the original path follows as its own record
    } else if (r.startsWith('u ')) {
      put(field(r, 10), 'conflicted');
    } else if (r.startsWith('? ')) {
      put(r.slice(2), 'untracked');
    } else if (r.startsWith('! ')) {
      put(r.slice(2), 'ignored');
    }
  }
  return res;
}

/** The rest of a record after `n` space-separated fields (the path, which may contain spaces). */
function field(record: string, n: number): string {
  let at = 0;
  for (let k = 0; k < n; k++) at = record.indexOf(' ', at) + 1;
  return record.slice(at);
}

/** Same precedence as the file entries' git_status (status-map.ts): added, then deleted, then modified. */
function ordinary(xy: string): GitEntryStatus {
  if (xy[0] === 'A') return 'added';
  if (xy.includes('D')) return 'deleted';
  return 'modified';
}

/** `added\tdeleted\tpath\0`, or `added\tdeleted\t\0from\0to\0` for a rename; `-` for binary files. */
function sumNumstat(out: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(parts[i]);
    if (!m) continue;
    if (m[1] !== '-') additions += Number(m[1]);
    if (m[2] !== '-') deletions += Number(m[2]);
    if (m[3] === '') i += 2;
  }
  return { additions, deletions };
}

/** Lines of each untracked text file (a final line without a newline counts). */
async function countLines(cwd: string, rels: string[]): Promise<number> {
  let total = 0;
  for (let i = 0; i < rels.length; i += 32) {
    const counts = await Promise.all(rels.slice(i, i + 32).map((r) => linesOf(path.join(cwd, r))));
    for (const c of counts) total += c;
  }
  return total;
}

async function linesOf(file: string): Promise<number> {
  let fh;
  try {
    fh = await open(file, 'r');
    const st = await fh.stat();
    if (!st.isFile() || st.size > UNTRACKED_MAX_BYTES || st.size === 0) return 0;
    const buf = await fh.readFile();
    if (buf.subarray(0, 8000).includes(0)) return 0;
    let n = 0;
    for (let at = buf.indexOf(10); at >= 0; at = buf.indexOf(10, at + 1)) n++;
    return buf[buf.length - 1] === 10 ? n : n + 1;
  } catch {
    return 0; // vanished or unreadable since git listed it
  } finally {
    await fh?.close();
  }
}
