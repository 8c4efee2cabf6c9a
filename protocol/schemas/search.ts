import * as v from 'valibot';
import { AgentId, Id, maxString } from './common.ts';

/** Longest query text (ours; the spec sets none). */
export const SEARCH_QUERY_CHARS = 4096;
/** Epoch milliseconds up to the year 275,760 (the largest JavaScript date). */
const EpochMs = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(8.64e15));

export const SearchRole = v.picklist(['user', 'assistant', 'title']);

/** POST /api/v1/search body (part-b "Search and connections"). */
export const SearchBody = v.object({
  query: v.pipe(
    v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(SEARCH_QUERY_CHARS, `must be at most ${SEARCH_QUERY_CHARS} characters`),
    v.description('terms mode: ASCII words and CJK bigrams, at most 32 distinct terms; literal mode: an exact, case-sensitive substring'),
  ),
  mode: v.optional(v.picklist(['terms', 'literal'])),
  op: v.optional(v.picklist(['AND', 'OR'])),
  container: v.optional(v.object({ session_id: v.optional(Id), agent_id: v.optional(AgentId) })),
  role: v.optional(SearchRole),
  start_time: v.optional(EpochMs),
  end_time: v.optional(EpochMs),
  sort: v.optional(v.picklist(['score', 'time_desc', 'time_asc'])),
  page_size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50))),
  page_token: v.optional(maxString(1024)),
});
export type SearchBody = v.InferOutput<typeof SearchBody>;

export const SearchItem = v.object({
  session_id: v.string(),
  workspace_id: v.string(),
  session_title: v.string(),
  agent_id: v.string(),
  role: SearchRole,
  snippet: v.pipe(v.string(), v.description('the text around the first match; … marks cut text')),
  time: v.pipe(v.number(), v.description('epoch milliseconds')),
  turn: v.optional(v.string()),
  step_id: v.optional(v.string()),
  score: v.number(),
});

export const IndexState = v.object({
  state: v.picklist(['building', 'ready', 'readonly']),
  indexed_sessions: v.number(),
  total_sessions: v.number(),
  documents: v.number(),
  stale: v.optional(v.boolean()),
  degraded: v.optional(v.pipe(v.boolean(), v.description('the worker thread failed: the index runs in the server process'))),
  failed: v.optional(v.pipe(v.boolean(), v.description('the index build failed: `building` stays, answers hold what it indexed before failing; a search starts the build again (at once, then at most every 30 s)'))),
});

export const SearchData = v.object({
  items: v.array(SearchItem),
  has_more: v.boolean(),
  page_token: v.optional(v.string()),
  index_state: IndexState,
  source: v.picklist(['index', 'live']),
  incomplete: v.optional(v.picklist(['candidate_cap', 'postings_budget', 'deadline'])),
});
export type SearchData = v.InferOutput<typeof SearchData>;
