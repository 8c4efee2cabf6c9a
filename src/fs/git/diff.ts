import { git, gitCapped, openRepo } from './git.ts';

/** Diffs are cut (at a line end) past this many bytes and flagged `truncated`. */
export const DIFF_MAX_BYTES = 2 ** 20;
/** Untracked files diffed one git process each: past this many the diff is `truncated`. */
export const DIFF_MAX_UNTRACKED = 200;

/**
 * Unified diff of `rel` (a file or a directory, relative to `cwd`) in the work
 * tree against HEAD, staged and unstaged changes together; untracked files
 * under it are diffed against /dev/null (`git diff --no-index`), after the
 * tracked changes. An unchanged or unknown path gives an empty diff.
 */
export async function gitDiff(cwd: string, rel: string): Promise<{ diff: string; truncated: boolean }> {
  const repo = await openRepo(cwd);
  const parts: Buffer[] = [];
  let room = DIFF_MAX_BYTES;
  const tracked = await gitCapped(cwd, ['diff', '--no-color', '--no-ext-diff', repo.base, '--', rel], room);
  parts.push(tracked.out);
  room -= tracked.out.length;
  let truncated = tracked.truncated;
  if (!truncated) {
    const untracked = await untrackedUnder(cwd, rel, repo.prefix);
    if (untracked.length > DIFF_MAX_UNTRACKED) truncated = true;
    for (const file of untracked.slice(0, DIFF_MAX_UNTRACKED)) {
      const d = await gitCapped(cwd, ['diff', '--no-index', '--no-color', '--no-ext-diff', '--', '/dev/null', file], room, [0, 1]);
      parts.push(d.out);
      room -= d.out.length;
      if (d.truncated || room <= 0) {
        truncated = true;
        break;
      }
    }
  }
  const all = Buffer.concat(parts);
  return { diff: truncated ? cutAtLine(all) : all.toString('utf8'), truncated };
}

async function untrackedUnder(cwd: string, rel: string, prefix: string): Promise<string[]> {
  const out = (await git(cwd, ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--', rel])).stdout;
  return out
    .split('\0')
    .filter((r) => r.startsWith('? ') && r.slice(2).startsWith(prefix))
    .map((r) => r.slice(2 + prefix.length));
}

/** The bytes up to the last complete line, so a cut never splits a line or a character. */
function cutAtLine(buf: Buffer): string {
  const end = buf.lastIndexOf(10);
  return buf.subarray(0, end + 1).toString('utf8');
}
