import * as v from 'valibot';
import { ACTIVITY_STATUSES } from '../activity.ts';
import { Id, LIMITS, PathString, QueryBool, Unreadable, boundedString, queryInt, queryList } from './common.ts';

/** Most ids one v2 batch call takes (after duplicates collapse). */
export const BATCH_MAX_IDS = 5000;
/** page_size / group.page_size ceiling without and with the `id,archived` projection. */
export const V2_PAGE_MAX = 100;
export const V2_PAGE_MAX_PROJECTED = 10000;

export const ActivityStatus = v.picklist(ACTIVITY_STATUSES);
export type ActivityStatus = v.InferOutput<typeof ActivityStatus>;

/** One query value as the served spec (input types) sees it: the URL bounds it anyway, this says so. */
const QueryValue = v.pipe(v.string(), v.maxLength(LIMITS.pathBytes, `must be at most ${LIMITS.pathBytes} characters`));

/** Puts the description before the parsing pipe, where the served spec (input types) can see it. */
function queryParam<S extends v.GenericSchema<string, unknown>>(description: string, schema: S) {
  return v.pipe(QueryValue, v.description(description), schema);
}
function repeatableParam<S extends v.GenericSchema<string | string[], unknown>>(description: string, schema: S) {
  return v.pipe(v.union([QueryValue, v.pipe(v.array(QueryValue), v.maxLength(LIMITS.items, `at most ${LIMITS.items} values`))]), v.description(description), schema);
}

/** Part B "GET /api/v2/sessions" query; cross-field rules are checked by the list service. */
export const SessionListV2Query = v.object({
  'workspace.id': v.optional(repeatableParam(
    'repeatable; a workspace id or its absolute root path; an unknown id simply matches nothing',
    queryList(PathString),
  )),
  'activity.status': v.optional(repeatableParam(
    'repeatable: running / approval / question / failed / idle; live: approval or question (pending interaction), running (busy); otherwise failed when the last turn failed, else idle',
    queryList(ActivityStatus),
  )),
  'meta.updated_after': v.optional(queryParam('epoch ms, exclusive', queryInt(0, Number.MAX_SAFE_INTEGER))),
  'meta.updated_before': v.optional(queryParam('epoch ms, exclusive', queryInt(0, Number.MAX_SAFE_INTEGER))),
  'meta.archived': v.optional(v.pipe(v.picklist(['true', 'false', 'all'], 'must be true, false or all'), v.description('default false')), 'false'),
  'meta.has_prompt': v.optional(queryParam('true: sessions with a user prompt; false: empty ones', QueryBool)),
  view: v.optional(v.picklist(['flat', 'by_workspace'], 'must be flat or by_workspace'), 'flat'),
  'group.page_size': v.optional(queryParam(
    'by_workspace only; 1-100, default 5; up to 10000 with fields=id,archived',
    queryInt(1, V2_PAGE_MAX_PROJECTED),
  )),
  sort: v.optional(v.picklist(['meta.updated_at_desc', 'meta.updated_at_asc', 'meta.created_at_desc'], 'unsupported sort'), 'meta.updated_at_desc'),
  include: v.optional(repeatableParam('comma-separated; only `git`', queryList(v.pipe(v.string(), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`))))),
  fields: v.optional(repeatableParam('only `id,archived` (trims items to {id, archived}); not with include=git', queryList(v.pipe(v.string(), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`))))),
  page_size: v.optional(queryParam(
    '1-100, default 50; up to 10000 with fields=id,archived; counts groups under by_workspace',
    queryInt(1, V2_PAGE_MAX_PROJECTED),
  )),
  page_token: v.optional(queryParam('opaque; from next_page_token; bound to every other parameter except page_size; at most 1024 characters', boundedString(1024))),
  page: v.optional(queryParam('1-based stateless page; not with page_token; mints no token', queryInt(1, Number.MAX_SAFE_INTEGER))),
});
export type SessionListV2QueryOut = v.InferOutput<typeof SessionListV2Query>;

/** `git` of an item with include=git; every field null when the directory is not a repository or git is unavailable. */
export const GitInfo = v.pipe(
  v.object({
    branch: v.nullable(v.string()),
    detached: v.nullable(v.boolean()),
    upstream: v.nullable(v.string()),
    ahead: v.nullable(v.number()),
    behind: v.nullable(v.number()),
    dirty: v.nullable(v.boolean()),
    pull_request: v.pipe(
      v.nullable(v.object({
        number: v.number(),
        state: v.picklist(['open', 'merged', 'closed', 'draft']),
        url: v.string(),
      })),
      v.description('the pull request of the branch, from the GitHub CLI (`gh pr view`) when it is installed and authenticated (3 s timeout, cached with the rest); null otherwise'),
    ),
  }),
  v.description('from the git CLI in the workspace root, cached 60 s per directory; failures read as nulls'),
);
export type GitInfo = v.InferOutput<typeof GitInfo>;

export const SessionV2Item = v.object({
  id: v.string(),
  workspace: v.object({ id: v.string(), cwd: v.string() }),
  meta: v.object({
    title: v.string(),
    last_prompt: v.nullable(v.string()),
    created_at: v.pipe(v.number(), v.description('epoch ms (like updated_at)')),
    updated_at: v.pipe(v.number(), v.description('epoch ms')),
    archived: v.boolean(),
    archived_at: v.pipe(v.nullable(v.number()), v.description('epoch ms; null unless archived')),
  }),
  activity: v.object({
    status: ActivityStatus,
    model: v.pipe(v.nullable(v.string()), v.description('bound alias while live; null when cold')),
  }),
  git: v.optional(GitInfo),
});
export type SessionV2Item = v.InferOutput<typeof SessionV2Item>;

/** An item under `fields=id,archived`. */
export const SessionV2ProjectedItem = v.object({ id: v.string(), archived: v.boolean() });

const ListItem = v.union([SessionV2Item, SessionV2ProjectedItem]);

export const SessionV2FlatPage = v.object({
  items: v.array(ListItem),
  total: v.pipe(v.number(), v.description('size of the filtered set')),
  has_more: v.boolean(),
  next_page_token: v.pipe(v.nullable(v.string()), v.description('null on the last page and always in page mode')),
  unreadable: v.optional(Unreadable),
});

export const SessionV2Group = v.object({
  workspace: v.object({
    id: v.string(), root: v.string(), name: v.string(), created_at: v.string(), last_opened_at: v.string(), session_count: v.number(),
    cwd: v.pipe(v.string(), v.description('the same as `root`, the name web clients read (as in each item\'s `workspace`)')),
  }),
  sessions: v.pipe(v.array(ListItem), v.description('first group.page_size matches under the sort')),
  total: v.pipe(v.number(), v.description("the workspace's full matching count")),
});

export const SessionV2GroupedPage = v.object({
  groups: v.array(SessionV2Group),
  total: v.pipe(v.number(), v.description('number of groups (workspaces with at least one match)')),
  has_more: v.boolean(),
  next_page_token: v.nullable(v.string()),
  unreadable: v.optional(Unreadable),
});

export const SessionListV2Data = v.union([SessionV2FlatPage, SessionV2GroupedPage]);

export const SessionBatchBody = v.object({
  ids: v.pipe(
    v.array(Id, 'must be an array of session ids'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(10 * BATCH_MAX_IDS, `at most ${10 * BATCH_MAX_IDS} ids (duplicates included)`),
    v.check((ids) => new Set(ids).size <= BATCH_MAX_IDS, `at most ${BATCH_MAX_IDS} unique ids`),
    v.description(`1-${BATCH_MAX_IDS} unique session ids; duplicates collapse (first occurrence keeps its place)`),
  ),
});

export const SessionBatchResult = v.union([
  v.object({ id: v.string(), ok: v.literal(true) }),
  v.object({ id: v.string(), ok: v.literal(false), error: v.object({ code: v.number(), message: v.string() }) }),
]);
export type SessionBatchResult = v.InferOutput<typeof SessionBatchResult>;

export const SessionBatchData = v.object({
  results: v.pipe(v.array(SessionBatchResult), v.description('one per unique id, in input order')),
  succeeded: v.number(),
  failed: v.number(),
});
