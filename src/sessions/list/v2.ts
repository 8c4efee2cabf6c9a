import type { SessionRecord, SessionSort } from '../../../projections/session-index/session-index.ts';
import type { WorkspaceRecord } from '../../../projections/workspaces/workspace-registry.ts';
import type { SessionListV2QueryOut, SessionV2Item } from '../../../protocol/schemas/sessions-v2.ts';
import { toWorkspaceObject } from '../../workspaces/service.ts';
import type { GitInfoCache } from '../git-info.ts';
import { takePage, type SessionListDeps } from './v1.ts';
import { activityStatus, countMatches, matcher, normaliseListQuery, type ListConditions, type ListRequest } from './v2-query.ts';
import { decodePageToken, encodePageToken, fingerprint, type PagePosition } from './page-token.ts';

type Keep = (s: SessionRecord) => boolean;
type ListItem = SessionV2Item | { id: string; archived: boolean };

/**
 * GET /api/v2/sessions. Reads only the in-memory session index, never the journal.
 * Flat pages walk the index from the token's position, so a page costs
 * O(log n + page) when few rows are filtered out; `total` comes from the
 * per-workspace tallies when only archived/workspace filters apply, otherwise
 * from one scan of the index. The grouped view always costs one scan.
 */
export async function listSessionsV2(deps: SessionListDeps, git: GitInfoCache, q: SessionListV2QueryOut) {
  const req = normaliseListQuery(q);
  const fp = fingerprint(req.conditions);
  const pos = req.pageToken ? decodePageToken(req.pageToken, fp) : undefined;
  const keep = matcher(deps, req.conditions);
  if (req.conditions.view === 'by_workspace') {
    const page = groupedPage(deps, req, keep, pos);
    const groups = page.groups.map((g) => ({
      // `cwd` (= root): web clients key a group by its `workspace.cwd`, like the items' `workspace` (spec/clients.md).
      workspace: { ...toWorkspaceObject(deps, g.ws), cwd: g.ws.root },
      sessions: g.sessions.map((s) => toItem(deps, s, req.conditions)),
      total: g.total,
    }));
    await attachGit(deps, git, req.conditions, groups.flatMap((g) => g.sessions));
    return { groups, total: page.total, has_more: page.has_more, next_page_token: nextToken(req, fp, page.has_more, page.last) };
  }
  const page = flatPage(deps, req, keep, pos);
  const items = page.items.map((s) => toItem(deps, s, req.conditions));
  await attachGit(deps, git, req.conditions, items);
  const last = page.items.at(-1);
  const lastPos = last ? { key: sortKey(last, req.conditions.sort), id: last.id } : undefined;
  return { items, total: countMatches(deps, req.conditions, keep), has_more: page.has_more, next_page_token: nextToken(req, fp, page.has_more, lastPos) };
}

/** Tokens only in token mode (first page or page_token), and only when more rows follow. */
function nextToken(req: ListRequest, fp: string, hasMore: boolean, last: PagePosition | undefined): string | null {
  if (req.page !== undefined || !hasMore || !last) return null;
  return encodePageToken(fp, last);
}

export function sortKey(s: SessionRecord, sort: SessionSort): string {
  return sort === 'created_desc' ? s.created_at : s.updated_at;
}

const cmp = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);

/** True when (key, id) lies strictly after `pos` in the walk order of `sort`. */
function isPast(key: string, id: string, pos: PagePosition, sort: SessionSort): boolean {
  const c = cmp(key, pos.key) || cmp(id, pos.id);
  return sort === 'updated_asc' ? c > 0 : c < 0;
}

/** The index in `sort` order, starting just after `pos`. */
function* walkAfter(deps: SessionListDeps, sort: SessionSort, pos?: PagePosition): Generator<SessionRecord> {
  if (!pos) return yield* deps.sessions.walk(sort);
  const anchor = deps.sessions.get(pos.id);
  if (anchor && sortKey(anchor, sort) === pos.key) return yield* deps.sessions.walk(sort, { afterId: pos.id });
  // The last row served has since moved (updated) or gone: resume at its old place, found by one scan.
  let past = false;
  for (const s of deps.sessions.walk(sort)) {
    past ||= isPast(sortKey(s, sort), s.id, pos, sort);
    if (past) yield s;
  }
}

function* skipMatches(walk: Iterable<SessionRecord>, keep: Keep, n: number): Generator<SessionRecord> {
  let seen = 0;
  for (const s of walk) {
    if (!keep(s)) continue;
    if (seen++ >= n) yield s;
  }
}

function flatPage(deps: SessionListDeps, req: ListRequest, keep: Keep, pos: PagePosition | undefined) {
  const { sort } = req.conditions;
  if (req.page !== undefined) {
    const offset = (req.page - 1) * req.pageSize;
    return takePage(skipMatches(deps.sessions.walk(sort), keep, offset), () => true, req.pageSize);
  }
  return takePage(walkAfter(deps, sort, pos), keep, req.pageSize);
}

interface Group {
  ws: WorkspaceRecord;
  /** Sort key of the group's first session. */
  key: string;
  sessions: SessionRecord[];
  total: number;
}

/** Groups ordered by their first session's sort key (in the sort's direction), ties by workspace id. */
function compareGroups(a: { key: string; id: string }, b: { key: string; id: string }, sort: SessionSort): number {
  const k = cmp(a.key, b.key);
  return (sort === 'updated_asc' ? k : -k) || cmp(a.id, b.id);
}

/** One scan in sort order: the first match seen per workspace is its first session. */
function collectGroups(deps: SessionListDeps, c: ListConditions, keep: Keep): Group[] {
  const groups = new Map<string, Group>();
  for (const s of deps.sessions.walk(c.sort)) {
    if (!keep(s)) continue;
    let g = groups.get(s.workspace_id);
    if (!g) {
      g = { ws: deps.workspaces.get(s.workspace_id)!, key: sortKey(s, c.sort), sessions: [], total: 0 };
      groups.set(s.workspace_id, g);
    }
    g.total++;
    if (g.sessions.length < c.groupPageSize!) g.sessions.push(s);
  }
  const at = (g: Group) => ({ key: g.key, id: g.ws.id });
  return [...groups.values()].sort((a, b) => compareGroups(at(a), at(b), c.sort));
}

function groupedPage(deps: SessionListDeps, req: ListRequest, keep: Keep, pos: PagePosition | undefined) {
  const all = collectGroups(deps, req.conditions, keep);
  let start = 0;
  if (req.page !== undefined) start = (req.page - 1) * req.pageSize;
  else if (pos) {
    const i = all.findIndex((g) => compareGroups({ key: g.key, id: g.ws.id }, pos, req.conditions.sort) > 0);
    start = i < 0 ? all.length : i;
  }
  const groups = all.slice(start, start + req.pageSize);
  const lastGroup = groups.at(-1);
  return {
    groups,
    total: all.length,
    has_more: start + req.pageSize < all.length,
    last: lastGroup ? { key: lastGroup.key, id: lastGroup.ws.id } : undefined,
  };
}

const epochMs = (iso: string) => Date.parse(iso);

function toItem(deps: SessionListDeps, s: SessionRecord, c: ListConditions): ListItem {
  if (c.projected) return { id: s.id, archived: s.archived };
  return {
    id: s.id,
    workspace: { id: s.workspace_id, cwd: s.cwd },
    meta: {
      title: s.title,
      last_prompt: s.last_prompt ?? null,
      created_at: epochMs(s.created_at),
      updated_at: epochMs(s.updated_at),
      archived: s.archived,
      archived_at: s.archived && s.archived_at ? epochMs(s.archived_at) : null,
    },
    activity: { status: activityStatus(s, deps.live), model: deps.live.get(s.id)?.model ?? null },
  };
}

/** Adds `git` to full items, one lookup per distinct workspace root. */
async function attachGit(deps: SessionListDeps, git: GitInfoCache, c: ListConditions, items: ListItem[]): Promise<void> {
  if (!c.includeGit || c.projected) return;
  const full = items as SessionV2Item[];
  const roots = new Map<string, string>();
  for (const it of full) roots.set(it.workspace.id, deps.workspaces.get(it.workspace.id)?.root ?? it.workspace.cwd);
  const infos = new Map(await Promise.all([...new Set(roots.values())].map(async (dir) => [dir, await git.get(dir)] as const)));
  for (const it of full) it.git = { ...infos.get(roots.get(it.workspace.id)!)! };
}
