import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { FileEntry } from './entry.ts';
import { gitStatusMap, type GitStatusMap } from './git/status-map.ts';
import { listTree, type ListOptions, type ListSort } from './list.ts';
import { mapLimit } from './pool.ts';
import { fsSession, resolvePath, type SessionFsDeps } from './scope.ts';

/** List options as they arrive on the wire (defaults applied here). */
export interface ListInput {
  runtime_id?: string;
  depth?: number;
  limit?: number;
  show_hidden?: boolean;
  follow_gitignore?: boolean;
  exclude_globs?: string[];
  sort?: ListSort;
  include_git_status?: boolean;
}

function listOptions(i: ListInput): ListOptions {
  return {
    depth: i.depth ?? 1,
    limit: i.limit ?? 200,
    show_hidden: i.show_hidden ?? false,
    follow_gitignore: i.follow_gitignore ?? true,
    exclude_globs: i.exclude_globs ?? [],
    sort: i.sort ?? 'type_first',
  };
}

/** One `git status` per allowed root and request, only when git_status is asked for. */
function gitLoader(enabled: boolean): (root: string) => Promise<GitStatusMap | null> {
  const cache = new Map<string, Promise<GitStatusMap | null>>();
  return (root) => {
    if (!enabled) return Promise.resolve(null);
    let hit = cache.get(root);
    if (!hit) cache.set(root, (hit = gitStatusMap(root)));
    return hit;
  };
}

/** POST fs:list. */
export async function fsList(deps: SessionFsDeps, sessionId: string, body: ListInput & { path?: string }) {
  const s = fsSession(deps, sessionId, body.runtime_id);
  const target = await resolvePath(deps, s, body.path ?? '.');
  const git = await gitLoader(body.include_git_status ?? false)(target.root);
  return listTree(target, listOptions(body), git);
}

/**
 * POST fs:list_many: each path listed as fs:list would (the limit applies per
 * path); a failing path lands in `partial_errors` and never fails the request.
 * Keys are the paths as given. With depth > 1 the descendants of every path
 * are merged into one `children_by_path`.
 */
export async function fsListMany(deps: SessionFsDeps, sessionId: string, body: ListInput & { paths: string[] }) {
  const s = fsSession(deps, sessionId, body.runtime_id);
  const opts = listOptions(body);
  const git = gitLoader(body.include_git_status ?? false);
  const results: Record<string, FileEntry[]> = {};
  const partial_errors: Record<string, { code: number; msg: string }> = {};
  const truncated_paths: string[] = [];
  const children_by_path: Record<string, FileEntry[]> = {};
  const unique = [...new Set(body.paths)];
  await mapLimit(unique, 8, async (given) => {
    try {
      const target = await resolvePath(deps, s, given);
      const r = await listTree(target, opts, await git(target.root));
      results[given] = r.items;
      if (r.truncated) truncated_paths.push(given);
      Object.assign(children_by_path, r.children_by_path);
    } catch (err) {
      if (err instanceof ApiError) partial_errors[given] = { code: err.code, msg: err.message };
      else {
        deps.log.warn({ err, path: given }, 'fs:list_many: listing failed');
        partial_errors[given] = { code: Codes.INTERNAL, msg: 'internal error' };
      }
    }
  });
  truncated_paths.sort((a, b) => unique.indexOf(a) - unique.indexOf(b));
  return { results, truncated_paths, partial_errors, ...(opts.depth > 1 ? { children_by_path } : {}) };
}
