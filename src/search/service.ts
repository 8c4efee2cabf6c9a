import { getHeapStatistics } from 'node:v8';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import { searchOps, type SearchOp } from '../../projections/search/documents.ts';
import { DEFAULT_BUDGETS, SearchEngine, type SearchBudgets, type SearchQuery } from '../../projections/search/engine.ts';
import type { Message } from '../../projections/contract.ts';
import { validationError } from '../../protocol/errors.ts';
import type { SearchBody, SearchData } from '../../protocol/schemas/search.ts';
import type { Logger } from '../app/logger.ts';
import { fingerprint } from '../sessions/list/page-token.ts';
import type { Ids } from '../lib/ids.ts';
import { inProcessBackend, workerBackend, type SearchBackend } from './backend.ts';
import { collectGarbage } from './gc.ts';

/** Events per build chunk: the server answers requests between chunks. */
const BUILD_CHUNK = 2000;
const DEFAULT_PAGE = 20;
/** Build batches posted to the worker and not yet applied, at most. */
const BUILD_IN_FLIGHT = 2;

export interface SearchDeps {
  journal: Journal;
  sessions: SessionIndex;
  /** Live sessions: their in-memory history is scanned when a query names one. */
  engine: { get(sessionId: string): { history: Message[] } | undefined };
  ids: Ids;
  log: Logger;
  /** `[database] search`: the index in a worker thread (true) or in the server process. */
  useWorker: boolean;
  budgets?: SearchBudgets;
}

/** Search budgets from the environment (benches and tests tighten them). */
export function budgetsFromEnv(env: NodeJS.ProcessEnv = process.env): SearchBudgets {
  const n = (name: string, dflt: number) => (Number(env[name]) > 0 ? Number(env[name]) : dflt);
  return {
    candidateCap: n('SVC_CODE_SEARCH_CANDIDATE_CAP', DEFAULT_BUDGETS.candidateCap),
    postingsBudget: n('SVC_CODE_SEARCH_POSTINGS_BUDGET', DEFAULT_BUDGETS.postingsBudget),
    deadlineMs: n('SVC_CODE_SEARCH_DEADLINE_MS', DEFAULT_BUDGETS.deadlineMs),
  };
}

const invalid = (field: string, message: string) => validationError([{ field, message }]);

/**
 * Cross-session search (docs/search.md): the index is a projection of the journal kept outside it. At start it
 * is built from seq 0 (`building`), off the request path; events committed meanwhile wait, then those the scan
 * did not see are applied (`ready`). After that every committed batch is applied as it lands.
 */
export class SearchService {
  private backend: SearchBackend;
  private state: 'building' | 'ready' = 'building';
  private degraded = false;
  private pendingDuringBuild: JournalEvent[] = [];
  private generation: string;
  private built?: Promise<void>;
  private closed = false;

  constructor(private readonly deps: SearchDeps) {
    this.generation = deps.ids.ulid();
    this.backend = this.makeBackend(deps.useWorker);
  }

  get kind(): SearchBackend['kind'] {
    return this.backend.kind;
  }

  private makeBackend(worker: boolean): SearchBackend {
    const budgets = this.deps.budgets ?? DEFAULT_BUDGETS;
    if (!worker) return inProcessBackend(budgets);
    return workerBackend(budgets, (err) => {
      if (this.closed) return;
      // A dead worker: rebuild in the server process, and say so in index_state.
      this.deps.log.error({ err }, 'search worker failed; the index is rebuilt in the server process');
      this.degraded = true;
      this.backend = inProcessBackend(budgets);
      this.generation = this.deps.ids.ulid();
      void this.start();
    });
  }

  /** Builds the index from the journal; resolves when it is `ready`. Call after the subscriber is registered. */
  start(): Promise<void> {
    this.state = 'building';
    this.built = this.build().catch((err) => this.deps.log.error({ err }, 'search index build failed'));
    return this.built;
  }

  /** Resolves once the current build is done (tests and benches). */
  whenReady(): Promise<void> {
    return this.built ?? Promise.resolve();
  }

  private async build(): Promise<void> {
    const backend = this.backend;
    const started = performance.now();
    const scanned = new Map<string, number>();
    let ops: SearchOp[] = [];
    let n = 0;
    for await (const e of this.deps.journal.scanAll()) {
      if (this.closed || backend !== this.backend) return;
      scanned.set(e.stream, e.seq);
      for (const op of searchOps(e)) ops.push(op);
      if (++n % BUILD_CHUNK === 0) {
        backend.apply(ops);
        ops = [];
        // Backpressure: the scan waits for the worker, so batches do not pile up in memory.
        await backend.caughtUp(BUILD_IN_FLIGHT);
        await yieldToLoop();
      }
    }
    backend.apply(ops);
    const waiting = this.pendingDuringBuild;
    this.pendingDuringBuild = [];
    backend.apply(waiting.filter((e) => e.seq > (scanned.get(e.stream) ?? 0)).flatMap(searchOps));
    backend.built();
    // The scan's dead events: one collection now instead of a heap that stays at its high-water mark.
    if (backend.kind === 'worker') collectGarbage();
    this.state = 'ready';
    const heap = getHeapStatistics();
    this.deps.log.info({ events: n, ms: Math.round(performance.now() - started), in: backend.kind, server_heap_mb: Math.round(heap.used_heap_size / 1e6) }, 'search index ready');
  }

  /** Committed-event subscriber `search index`. */
  onCommitted = (events: JournalEvent[]): void => {
    if (this.state === 'building') {
      this.pendingDuringBuild.push(...events);
      return;
    }
    const ops = events.flatMap(searchOps);
    if (ops.length) this.backend.apply(ops);
  };

  /** The query a page token is bound to: every field but `page_size` and `page_token` (the v2 list's fingerprint). */
  private queryHash(b: SearchBody): string {
    return fingerprint({ query: b.query, mode: b.mode ?? 'terms', op: b.op ?? 'AND', container: b.container ?? {}, role: b.role ?? null, start_time: b.start_time ?? null, end_time: b.end_time ?? null, sort: b.sort ?? 'score' });
  }

  private offsetOf(b: SearchBody, hash: string): number {
    if (b.page_token === undefined) return 0;
    let t: { g?: unknown; h?: unknown; o?: unknown };
    try {
      t = JSON.parse(Buffer.from(b.page_token, 'base64url').toString('utf8')) as typeof t;
    } catch {
      throw invalid('page_token', 'invalid page token');
    }
    if (t?.g !== this.generation) throw invalid('page_token', 'page token of another index generation');
    if (t.h !== hash) throw invalid('page_token', 'page token of another query');
    if (typeof t.o !== 'number' || !Number.isInteger(t.o) || t.o < 0) throw invalid('page_token', 'invalid page token');
    return t.o;
  }

  async search(b: SearchBody): Promise<SearchData> {
    const hash = this.queryHash(b);
    const offset = this.offsetOf(b, hash);
    const pageSize = b.page_size ?? DEFAULT_PAGE;
    const q: SearchQuery = {
      query: b.query, mode: b.mode ?? 'terms', op: b.op ?? 'AND', sort: b.sort ?? 'score', offset, page_size: pageSize,
      ...(b.container?.session_id !== undefined ? { session_id: b.container.session_id } : {}),
      ...(b.container?.agent_id !== undefined ? { agent_id: b.container.agent_id } : {}),
      ...(b.role !== undefined ? { role: b.role } : {}),
      ...(b.start_time !== undefined ? { start_time: b.start_time } : {}),
      ...(b.end_time !== undefined ? { end_time: b.end_time } : {}),
    };
    const live = q.session_id !== undefined ? this.deps.engine.get(q.session_id) : undefined;
    const backend = this.backend;
    // A worker that died under this query: the in-process index that replaced it answers.
    const reply = live ? this.searchLive(q.session_id!, live.history, q) : await backend.search(q).catch((err: unknown) => {
      if (backend !== this.backend) return this.backend.search(q);
      throw err;
    });
    const page = reply.page;
    if ('error' in page) {
      throw invalid('query', page.error === 'empty_query' ? 'empty query: no searchable terms' : 'more than 32 distinct terms');
    }
    const items = page.hits;
    const token = page.has_more ? Buffer.from(JSON.stringify({ g: this.generation, h: hash, o: offset + pageSize })).toString('base64url') : undefined;
    return {
      items, has_more: page.has_more, ...(token ? { page_token: token } : {}),
      index_state: {
        state: this.state, indexed_sessions: reply.sessions, total_sessions: this.deps.sessions.size, documents: reply.documents,
        ...(this.degraded ? { degraded: true } : {}),
      },
      source: live ? 'live' : 'index',
      ...(page.incomplete ? { incomplete: page.incomplete } : {}),
    };
  }

  /** A live session: its in-memory history (and title) searched on their own. */
  private searchLive(sessionId: string, history: Message[], q: SearchQuery) {
    const engine = new SearchEngine(this.deps.budgets ?? DEFAULT_BUDGETS);
    const s = this.deps.sessions.get(sessionId);
    engine.apply({ op: 'session', session_id: sessionId, workspace_id: s?.workspace_id ?? '', title: s?.title ?? '', time: s ? Date.parse(s.updated_at) : 0, archived: false });
    for (const m of history) {
      for (const op of searchOps({ stream: sessionId, seq: 0, epoch: '', type: 'message.created', ts: m.created_at, payload: { agent_id: 'main', message: m } })) engine.apply(op);
    }
    return { page: engine.search(q), documents: engine.documents, sessions: 1 };
  }

  /** Ends the worker thread as a crash would: the in-process fallback takes over (tests). */
  crashWorker(): Promise<void> {
    return this.backend.crash();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.backend.close();
  }
}
