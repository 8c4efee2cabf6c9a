import path from 'node:path';
import type { SessionRecord, SessionSort } from '../../../projections/session-index/session-index.ts';
import { activityStatusOf } from '../../../protocol/activity.ts';
import { validationError, type FieldIssue } from '../../../protocol/errors.ts';
import { V2_PAGE_MAX, V2_PAGE_MAX_PROJECTED, type ActivityStatus, type SessionListV2QueryOut } from '../../../protocol/schemas/sessions-v2.ts';
import { workspaceIdFor } from '../../workspaces/ids.ts';
import type { LiveSessions } from '../live.ts';
import type { SessionListDeps } from './v1.ts';

const SORTS: Record<SessionListV2QueryOut['sort'], SessionSort> = {
  'meta.updated_at_desc': 'updated_desc',
  'meta.updated_at_asc': 'updated_asc',
  'meta.created_at_desc': 'created_desc',
};

/** The filter, order and shape of a v2 list, normalised; the page token binds all of it. */
export interface ListConditions {
  workspaceIds: string[] | null;
  statuses: ActivityStatus[] | null;
  updatedAfter: number | null;
  updatedBefore: number | null;
  archived: 'true' | 'false' | 'all';
  hasPrompt: boolean | null;
  view: 'flat' | 'by_workspace';
  groupPageSize: number | null;
  sort: SessionSort;
  includeGit: boolean;
  projected: boolean;
}

export interface ListRequest {
  conditions: ListConditions;
  pageSize: number;
  pageToken?: string;
  page?: number;
}

/** Comma-separated values of a (possibly repeated) parameter. */
function commaList(raw: string[] | undefined): string[] {
  return (raw ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
}

const sortedUnique = <T extends string>(xs: T[]): T[] => [...new Set(xs)].sort();

/** Applies the cross-field rules of the spec table; every failure is one 40001 listing each field. */
export function normaliseListQuery(q: SessionListV2QueryOut): ListRequest {
  const issues: FieldIssue[] = [];
  const include = commaList(q.include);
  const unknownInclude = include.filter((x) => x !== 'git');
  if (unknownInclude.length) issues.push({ field: 'include', message: `unsupported include: ${unknownInclude.join(',')} (only git)` });
  const fields = commaList(q.fields);
  const projected = fields.length > 0;
  if (projected && !(sortedUnique(fields).join(',') === 'archived,id')) {
    issues.push({ field: 'fields', message: 'only id,archived is supported' });
  }
  const includeGit = include.includes('git');
  if (projected && includeGit) issues.push({ field: 'fields', message: 'fields cannot be combined with include=git' });
  const max = projected ? V2_PAGE_MAX_PROJECTED : V2_PAGE_MAX;
  if (q.page_size !== undefined && q.page_size > max) issues.push({ field: 'page_size', message: `must be <= ${V2_PAGE_MAX} (${V2_PAGE_MAX_PROJECTED} with fields=id,archived)` });
  const grouped = q.view === 'by_workspace';
  if (q['group.page_size'] !== undefined && !grouped) issues.push({ field: 'group.page_size', message: 'only allowed with view=by_workspace' });
  else if (q['group.page_size'] !== undefined && q['group.page_size'] > max) {
    issues.push({ field: 'group.page_size', message: `must be <= ${V2_PAGE_MAX} (${V2_PAGE_MAX_PROJECTED} with fields=id,archived)` });
  }
  if (q.page !== undefined && q.page_token !== undefined) {
    const message = 'page and page_token are mutually exclusive';
    issues.push({ field: 'page', message }, { field: 'page_token', message });
  }
  if (issues.length) throw validationError(issues);
  return {
    conditions: {
      workspaceIds: q['workspace.id'] ? sortedUnique(q['workspace.id']) : null,
      statuses: q['activity.status'] ? sortedUnique(q['activity.status']) : null,
      updatedAfter: q['meta.updated_after'] ?? null,
      updatedBefore: q['meta.updated_before'] ?? null,
      archived: q['meta.archived'],
      hasPrompt: q['meta.has_prompt'] ?? null,
      view: q.view,
      groupPageSize: grouped ? q['group.page_size'] ?? 5 : null,
      sort: SORTS[q.sort],
      includeGit,
      projected,
    },
    pageSize: q.page_size ?? 50,
    pageToken: q.page_token,
    page: q.page,
  };
}

/** Status of a session for `activity.status`; a cold session is never busy and has no pending interaction. */
export function activityStatus(s: SessionRecord, live: LiveSessions): ActivityStatus {
  const state = live.get(s.id);
  return activityStatusOf({ busy: state?.busy, pending_interaction: state?.pending_interaction, last_turn_reason: s.last_turn_reason });
}

/** Resolved workspace filter: ids as given, absolute root paths mapped to their id. */
export function workspaceFilter(deps: SessionListDeps, c: ListConditions): Set<string> | null {
  if (!c.workspaceIds) return null;
  return new Set(c.workspaceIds.map((w) => (!deps.workspaces.get(w) && path.isAbsolute(w) ? workspaceIdFor(path.resolve(w)) : w)));
}

/** True when only archived/workspace filters apply, so counts come from the index's per-workspace tallies. */
export function isCountable(c: ListConditions): boolean {
  return c.statuses === null && c.hasPrompt === null && c.updatedAfter === null && c.updatedBefore === null;
}

/** The filter predicate; sessions whose workspace no longer resolves never match. */
export function matcher(deps: SessionListDeps, c: ListConditions): (s: SessionRecord) => boolean {
  const workspaces = workspaceFilter(deps, c);
  const statuses = c.statuses ? new Set(c.statuses) : null;
  return (s) => {
    if (c.archived !== 'all' && s.archived !== (c.archived === 'true')) return false;
    if (workspaces && !workspaces.has(s.workspace_id)) return false;
    if (!deps.workspaces.get(s.workspace_id)) return false;
    if (c.hasPrompt !== null && s.has_prompt !== c.hasPrompt) return false;
    if (c.updatedAfter !== null || c.updatedBefore !== null) {
      const t = Date.parse(s.updated_at);
      if (c.updatedAfter !== null && !(t > c.updatedAfter)) return false;
      if (c.updatedBefore !== null && !(t < c.updatedBefore)) return false;
    }
    return statuses === null || statuses.has(activityStatus(s, deps.live));
  };
}

/** Size of the filtered set: per-workspace tallies when possible, else one scan of the index. */
export function countMatches(deps: SessionListDeps, c: ListConditions, keep: (s: SessionRecord) => boolean): number {
  if (!isCountable(c)) {
    let n = 0;
    for (const s of deps.sessions.all()) if (keep(s)) n++;
    return n;
  }
  const filter = workspaceFilter(deps, c);
  const ids = filter ? [...filter].filter((id) => deps.workspaces.get(id)) : deps.workspaces.all().map((w) => w.id);
  let n = 0;
  for (const id of ids) {
    const { all, archived } = deps.sessions.countsFor(id);
    n += c.archived === 'all' ? all : c.archived === 'true' ? archived : all - archived;
  }
  return n;
}
