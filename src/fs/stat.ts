import { lstat } from 'node:fs/promises';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import { ApiError } from '../../protocol/errors.ts';
import { describe, type FileEntry } from './entry.ts';
import { fsError } from './errors.ts';
import { countChildren, type ListOptions } from './list.ts';
import { mapLimit } from './pool.ts';
import { fsSession, resolvePath, type SessionFsDeps } from './scope.ts';

/** child_count of fs:stat counts what a default fs:list of the directory would show (uncapped). */
const STAT_COUNT_OPTIONS: ListOptions = { depth: 1, limit: 1000, show_hidden: false, follow_gitignore: true, exclude_globs: [], sort: 'name_asc' };

/**
 * The entry of one confined path. Unlike list entries, is_binary and mime of
 * a file come from sniffing its first 8 KiB. A symlink inside the workspace
 * is described as the link (kind `symlink`); one leading outside is 41304.
 */
export async function statPath(deps: SessionFsDeps, s: SessionRecord, given: string): Promise<FileEntry> {
  const p = await resolvePath(deps, s, given);
  try {
    const st = await lstat(p.abs);
    const entry = await describe(p.abs, p.wire, { sniff: true, stats: st });
    if (entry.kind === 'directory') {
      const n = await countChildren(p, STAT_COUNT_OPTIONS);
      if (n !== undefined) entry.child_count = n;
    }
    return entry;
  } catch (err) {
    fsError(err, given);
  }
}

/** POST fs:stat. */
export async function fsStat(deps: SessionFsDeps, sessionId: string, body: { runtime_id?: string; path: string }) {
  return statPath(deps, fsSession(deps, sessionId, body.runtime_id), body.path);
}

/** POST fs:stat_many: path as given -> entry, or null when it is missing, escapes or cannot be read. */
export async function fsStatMany(deps: SessionFsDeps, sessionId: string, body: { runtime_id?: string; paths: string[] }) {
  const s = fsSession(deps, sessionId, body.runtime_id);
  const entries: Record<string, FileEntry | null> = {};
  const unique = [...new Set(body.paths)];
  const found = await mapLimit(unique, 32, async (given) => {
    try {
      return await statPath(deps, s, given);
    } catch (err) {
      if (!(err instanceof ApiError)) deps.log.warn({ err, path: given }, 'fs:stat_many: stat failed');
      return null;
    }
  });
  unique.forEach((given, i) => (entries[given] = found[i]));
  return { entries };
}
