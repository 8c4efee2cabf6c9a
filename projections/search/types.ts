import type { DocRole } from './documents.ts';

/** Terms mode takes at most this many distinct terms (part-b "Search"). */
export const MAX_QUERY_TERMS = 32;

export interface SearchBudgets {
  /** Matching documents gathered before sorting; beyond it the page is `incomplete: candidate_cap`. */
  candidateCap: number;
  /** Posting entries walked per query (`postings_budget`). */
  postingsBudget: number;
  /** Wall time per query in ms (`deadline`). */
  deadlineMs: number;
}

export const DEFAULT_BUDGETS: SearchBudgets = { candidateCap: 20_000, postingsBudget: 4_000_000, deadlineMs: 400 };

export interface SearchQuery {
  query: string;
  mode: 'terms' | 'literal';
  op: 'AND' | 'OR';
  session_id?: string;
  agent_id?: string;
  role?: DocRole;
  start_time?: number;
  end_time?: number;
  sort: 'score' | 'time_desc' | 'time_asc';
  offset: number;
  page_size: number;
}

export interface SearchHit {
  session_id: string;
  workspace_id: string;
  session_title: string;
  agent_id: string;
  role: DocRole;
  snippet: string;
  time: number;
  turn?: string;
  score: number;
}

export type Incomplete = 'candidate_cap' | 'postings_budget' | 'deadline';

export interface SearchPage {
  hits: SearchHit[];
  has_more: boolean;
  incomplete?: Incomplete;
}

export type QueryError = { error: 'empty_query' | 'too_many_terms' };

/** A query's matching documents (unsorted) and why the gathering stopped early, if it did. */
export interface Found {
  found: Array<{ doc: number; score: number }>;
  incomplete?: Incomplete;
}

/** Documents per block of the literal walk's time bound. */
export const BLOCK_BITS = 10;
