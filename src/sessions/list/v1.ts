import type * as v from 'valibot';
import type { SessionRecord } from '../../../projections/session-index/session-index.ts';
import { validationError } from '../../../protocol/errors.ts';
import type { SessionListQuery } from '../../../protocol/schemas/sessions.ts';
import { resolveWorkspaceAlias } from '../../workspaces/service.ts';
import type { LiveSessions } from '../live.ts';
import type { SessionLookup } from '../lookup.ts';
import { toSessionObject } from '../view.ts';

/** The read models session lists walk: the index, the workspace registry and the live state. */
export interface SessionListDeps extends SessionLookup {
  live: LiveSessions;
}

type Query = v.InferOutput<typeof SessionListQuery>;

/** Takes up to `size` matches from `walk`; reports whether another match exists. */
export function takePage<T>(walk: Iterable<T>, keep: (x: T) => boolean, size: number): { items: T[]; has_more: boolean } {
  const items: T[] = [];
  for (const x of walk) {
    if (!keep(x)) continue;
    if (items.length === size) return { items, has_more: true };
    items.push(x);
  }
  return { items, has_more: false };
}

/** Cursor page over the index (newest `updated_at` first), shared by the v1 list and children. */
export function cursorPage(
  deps: SessionListDeps,
  cursor: { before_id?: string; after_id?: string },
  keep: (s: SessionRecord) => boolean,
  size: number,
  walkFrom: (from?: { afterId?: string; reverseFromId?: string }) => Iterable<SessionRecord>,
): { items: SessionRecord[]; has_more: boolean } {
  if (cursor.before_id && cursor.after_id) {
    throw validationError([
      { field: 'before_id', message: 'before_id and after_id are mutually exclusive' },
      { field: 'after_id', message: 'before_id and after_id are mutually exclusive' },
    ]);
  }
  const anchor = cursor.before_id ?? cursor.after_id;
  if (anchor && !deps.sessions.get(anchor)) {
    throw validationError([{ field: cursor.before_id ? 'before_id' : 'after_id', message: `unknown session id: ${anchor}` }]);
  }
  if (cursor.after_id) {
    const page = takePage(walkFrom({ reverseFromId: cursor.after_id }), keep, size);
    return { items: page.items.reverse(), has_more: page.has_more };
  }
  return takePage(walkFrom(cursor.before_id ? { afterId: cursor.before_id } : undefined), keep, size);
}

/** GET /api/v1/sessions. */
export function listSessionsV1(deps: SessionListDeps, q: Query) {
  if (q.include_archive && q.archived_only) {
    throw validationError([
      { field: 'include_archive', message: 'include_archive and archived_only are mutually exclusive' },
      { field: 'archived_only', message: 'include_archive and archived_only are mutually exclusive' },
    ]);
  }
  const workspaceId = q.workspace_id ? resolveWorkspaceAlias(deps, q.workspace_id).id : undefined;
  const paged = q.page_size !== undefined || q.archived_only === true;
  const size = paged ? q.page_size ?? 20 : Number.MAX_SAFE_INTEGER;
  const keep = (s: SessionRecord) =>
    (q.archived_only ? s.archived : q.include_archive ? true : !s.archived) &&
    (workspaceId === undefined || s.workspace_id === workspaceId) &&
    (q.busy === undefined || deps.live.isBusy(s.id) === q.busy) &&
    (!q.exclude_empty || s.has_prompt) &&
    deps.workspaces.get(s.workspace_id) !== undefined;
  const page = cursorPage(deps, q, keep, size, (from) => deps.sessions.walk('updated_desc', from));
  return { items: page.items.map((s) => toSessionObject(s, deps.live)), has_more: paged ? page.has_more : false };
}
