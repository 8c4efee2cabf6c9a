import { rm } from 'node:fs/promises';
import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import { searchOps } from '../../projections/search/documents.ts';
import { DEFAULT_BUDGETS, SearchEngine, type Position, type SearchBudgets, type SearchQuery } from '../../projections/search/engine.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { Message } from '../../projections/contract.ts';
import { validationError } from '../../protocol/errors.ts';
import type { SearchBody, SearchData } from '../../protocol/schemas/search.ts';
import type { Logger } from '../lib/logger.ts';
import { fingerprint } from '../sessions/list/page-token.ts';
import type { Ids } from '../lib/ids.ts';
import { inProcessBackend, workerBackend, type SearchBackend } from './backend.ts';
import { dropIndexFiles, hasSnapshot } from './host.ts';
import { collectGarbage } from './gc.ts';
import type { EventType } from '../../protocol/events/registry.ts';

/** Events per build chunk: the server answers requests between chunks. */
const BUILD_CHUNK = 2000;
const DEFAULT_PAGE = 20;
/** Build batches posted to the worker and not yet applied, at most. */
const BUILD_IN_FLIGHT = 2;
/** A search after a failed build starts it again at most this often (ms). */
const RETRY_BUILD_MS = 30_000;

/** A snapshot is written after a build and then at most this often while events change the index (and at close). */
const SAVE_INTERVAL_MS = 5 * 60_000;
export interface SearchDeps {
  journal: Journal;
  sessions: SessionIndex;
  /** Live sessions: their in-memory history is scanned when a query names one. */
  engine: { get(sessionId: string): { history: Message[] } | undefined };
  ids: Ids;
  log: Logger;
  /** `[database] search`: the index in a worker thread (true) or in the server process. */
  useWorker: boolean;
  /** Benches and tests tighten them (`SVC_CODE_SEARCH_*`, src/app/settings.ts); default DEFAULT_BUDGETS. */
  budgets?: SearchBudgets;
  /** The worker's young generation, MB (default DEFAULT_WORKER_YOUNG_MB; `SVC_CODE_SEARCH_WORKER_YOUNG_MB`). */
  workerYoungMb?: number;
  /** Where the index persists (its snapshot and texts); none keeps it in memory and rebuilds it every start. */
  dir?: string;
  /** `--rebuild-projections`: the snapshot is dropped and the index built from seq 0. */
  rebuild?: boolean;
}

export { searchIndexDir } from './index-dir.ts';

/** Removes every slot's search index of the home (`svc-code reindex`; no daemon runs on it). */
export function dropSearchIndexes(home: string): Promise<void> {
  return rm(path.join(home, 'search'), { recursive: true, force: true });
}

const invalid = (field: string, message: string) => validationError([{ field, message }]);

/** The last position of each stream among `events`. */
function marksOf(events: JournalEvent[]): Position[] {
  const last = new Map<string, Position>();
  for (const e of events) last.set(e.stream, [e.stream, e.seq, e.epoch]);
  return [...last.values()];
}

/**
 * Cross-session search (docs/search.md): the index is a projection of the journal kept outside it, in a
 * snapshot under the home with the journal position it covers. At start the snapshot is read and the events
 * after it applied, or, without a usable snapshot, the index is built from seq 0 (`building`, off the request
 * path); events committed meanwhile wait, then those not yet seen are applied (`ready`). After that every
 * committed batch is applied as it lands, and the snapshot rewritten now and then and at close.
 */
export class SearchService {
  private backend: SearchBackend;
  private state: 'building' | 'ready' = 'building';
  private degraded = false;
  private pendingDuringBuild: JournalEvent[] = [];
  private generation: string;
  private built?: Promise<void>;
  private closed = false;
  /** Positions of committed events that brought no ops, sent with the next ops or save. */
  private unsentMarks = new Map<string, Position>();
  /** The last build threw: committed events are not held for it. */
  private buildFailed = false;
  private dirty = false;
  private lastSave = 0;
  private saving?: Promise<boolean>;
  private recycleFailed = false;
  /** How the last start got the index: from its snapshot (and how many events after it) or from the journal. */
  lastStart?: { from: 'snapshot' | 'journal'; events: number; ms: number };

  constructor(private readonly deps: SearchDeps) {
    this.generation = deps.ids.ulid();
    if (deps.rebuild && deps.dir) dropIndexFiles(deps.dir);
    this.backend = this.makeBackend(deps.useWorker);
  }

  /** Where the index persists (none: in memory only). */
  get indexDir(): string | undefined {
    return this.deps.dir;
  }

  get kind(): SearchBackend['kind'] {
    return this.backend.kind;
  }

  private makeBackend(worker: boolean): SearchBackend {
    const budgets = this.deps.budgets ?? DEFAULT_BUDGETS;
    if (!worker) return inProcessBackend(budgets, this.deps.dir);
    return workerBackend(budgets, this.deps.dir, (err) => {
      if (this.closed) return;
      // A dead worker: rebuild in the server process, and say so in index_state.
      this.deps.log.error({ err }, 'search worker failed; the index is rebuilt in the server process');
      this.degraded = true;
      this.backend = inProcessBackend(budgets, this.deps.dir);
      this.generation = this.deps.ids.ulid();
      void this.start();
    }, this.deps.workerYoungMb);
  }

  /** Builds the index from the journal; resolves when it is `ready`. Call after the subscriber is registered. */
  start(): Promise<void> {
    this.state = 'building';
    this.buildFailed = false;
    this.built = this.build().catch((err) => {
      // Left `building` (answers say so); events are no longer held for a build that will not come.
      this.buildFailed = true;
      this.pendingDuringBuild = [];
      this.deps.log.error({ err }, 'search index build failed');
    });
    return this.built;
  }

  /** Resolves once the current build is done (tests and benches). */
  whenReady(): Promise<void> {
    return this.built ?? Promise.resolve();
  }

  private async build(): Promise<void> {
    const backend = this.backend;
    // Positions noted for the previous backend: this build reaches every stream itself.
    this.unsentMarks.clear();
    const started = performance.now();
    // Per stream, the last seq the index has (from the snapshot, the catch-up or the scan).
    const reached = new Map<string, number>();
    let opened = await backend.open(hasSnapshot(this.deps.dir));
    if (!opened.restored && opened.reason) this.deps.log.warn({ reason: opened.reason }, 'search index snapshot unusable; building from the journal');
    let from: 'snapshot' | 'journal' = 'journal';
    let n = 0;
    if (opened.restored) {
      const caught = await this.catchUp(backend, opened.positions, reached);
      if (caught === undefined) {
        this.deps.log.warn('search index snapshot does not match the journal (a stream was rebuilt or is behind it); building from the journal');
        reached.clear();
        opened = await backend.open(false);
      } else {
        n = caught;
        from = 'snapshot';
      }
    }
    if (!opened.restored) n = await this.scan(backend, reached);
    if (this.closed || backend !== this.backend) return;
    this.applyWaiting(backend, reached);
    backend.built();
    // The scan's dead events: one collection now instead of a heap that stays at its high-water mark (a start from
    // the snapshot scanned nothing: no pause for it).
    if (backend.kind === 'worker' && from === 'journal') collectGarbage();
    this.lastSave = performance.now();
    if (from === 'journal' || n > 0) {
      const saved = await this.save();
      // A build from seq 0 in a worker: a fresh worker loads what it built (events meanwhile still wait).
      if (saved && from === 'journal' && backend.kind === 'worker' && backend === this.backend && !this.closed && !this.recycleFailed) {
        if (!(await backend.recycle())) {
          // Its index is empty: built again from the journal, in that worker, once.
          this.deps.log.error('search worker could not read the snapshot it wrote; building the index again');
          this.recycleFailed = true;
          return this.build();
        }
      }
    }
    // A reindex (or close) while the snapshot was written replaced this build: the new one marks ready, not this.
    if (this.closed || backend !== this.backend) return;
    // Events committed while the snapshot was written (and the worker replaced) waited: applied before `ready`.
    this.applyWaiting(backend, reached);
    this.state = 'ready';
    this.lastStart = { from, events: n, ms: Math.round(performance.now() - started) };
    const heap = getHeapStatistics();
    const index = await backend.stats().catch(() => ({}));
    this.deps.log.info({
      events: n, from, ms: this.lastStart.ms, in: backend.kind, server_heap_mb: Math.round(heap.used_heap_size / 1e6), index,
    }, 'search index ready');
  }

  /** Applies the events committed during the build that it did not see. */
  private applyWaiting(backend: SearchBackend, reached: Map<string, number>): void {
    const waiting = this.pendingDuringBuild.filter((e) => e.seq > (reached.get(e.stream) ?? 0));
    this.pendingDuringBuild = [];
    for (const e of waiting) reached.set(e.stream, e.seq);
    if (waiting.length) this.dirty = true;
    backend.apply(waiting.flatMap(searchOps), marksOf(waiting));
  }

  /** Every event from seq 0, in chunks (the server answers requests between them). */
  private async scan(backend: SearchBackend, reached: Map<string, number>): Promise<number> {
    let batch: JournalEvent[] = [];
    let n = 0;
    const flush = async () => {
      backend.apply(batch.flatMap(searchOps), marksOf(batch));
      batch = [];
      // Backpressure: the scan waits for the worker, so batches do not pile up in memory.
      await backend.caughtUp(BUILD_IN_FLIGHT);
      await yieldToLoop();
    };
    for await (const e of this.deps.journal.scanAll()) {
      if (this.closed || backend !== this.backend) return n;
      reached.set(e.stream, e.seq);
      batch.push(e);
      if (++n % BUILD_CHUNK === 0) await flush();
    }
    backend.apply(batch.flatMap(searchOps), marksOf(batch));
    return n;
  }

  /**
   * From a snapshot: the events of each stream after its position (the global stream last, so a session's
   * deletion comes after its events). Undefined when the snapshot cannot be continued: a stream of another
   * epoch, or a journal behind it. A stream gone from the journal (a deleted session) is forgotten.
   */
  private async catchUp(backend: SearchBackend, positions: Position[], reached: Map<string, number>): Promise<number | undefined> {
    const heads = this.deps.journal.allHeads();
    const forgotten: Position[] = [];
    for (const [stream, seq, epoch] of positions) {
      const head = heads.get(stream);
      if (!head) forgotten.push([stream, 0, epoch]);
      else if (head.epoch !== epoch || head.seq < seq) return undefined;
      else reached.set(stream, seq);
    }
    backend.apply([], forgotten);
    const streams = [...heads.keys()].filter((s) => s !== GLOBAL_STREAM);
    if (heads.has(GLOBAL_STREAM)) streams.push(GLOBAL_STREAM);
    let n = 0;
    let batch: JournalEvent[] = [];
    for (const stream of streams) {
      const head = heads.get(stream)!;
      for (let seq = reached.get(stream) ?? 0; seq < head.seq;) {
        if (this.closed || backend !== this.backend) return n;
        const events = await this.deps.journal.readRange(stream, seq + 1, Math.min(head.seq, seq + BUILD_CHUNK));
        if (!events.length) break;
        seq = events[events.length - 1].seq;
        reached.set(stream, seq);
        batch.push(...events);
        n += events.length;
        if (batch.length >= BUILD_CHUNK) {
          backend.apply(batch.flatMap(searchOps), marksOf(batch));
          batch = [];
          await backend.caughtUp(BUILD_IN_FLIGHT);
        }
      }
    }
    backend.apply(batch.flatMap(searchOps), marksOf(batch));
    return n;
  }

  /** Writes the snapshot with every position seen so far (one at a time; a failure is logged, the index goes on). */
  private save(): Promise<boolean> {
    if (!this.deps.dir) return Promise.resolve(false);
    this.saving ??= (async () => {
      const backend = this.backend;
      try {
        backend.apply([], [...this.unsentMarks.values()]);
        this.unsentMarks.clear();
        this.dirty = false;
        this.lastSave = performance.now();
        await backend.save();
        return true;
      } catch (err) {
        if (backend === this.backend && !this.closed) this.deps.log.error({ err }, 'search index snapshot not written');
        return false;
      } finally {
        this.saving = undefined;
      }
    })();
    return this.saving;
  }

  /** Committed-event subscriber `search index`. */
  onCommitted = (events: JournalEvent[]): void => {
    if (this.state === 'building') {
      if (!this.buildFailed) this.pendingDuringBuild.push(...events);
      return;
    }
    for (const m of marksOf(events)) this.unsentMarks.set(m[0], m);
    this.dirty = true;
    const ops = events.flatMap(searchOps);
    if (ops.length) {
      this.backend.apply(ops, [...this.unsentMarks.values()]);
      this.unsentMarks.clear();
    }
    // Periodic saves only from the worker: in process, the snapshot write would block the event loop.
    if (this.backend.kind === 'worker' && performance.now() - this.lastSave >= SAVE_INTERVAL_MS) void this.save();
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
    const data = {
      items, has_more: page.has_more, ...(token ? { page_token: token } : {}),
      index_state: {
        state: this.state, indexed_sessions: reply.sessions, total_sessions: this.deps.sessions.size, documents: reply.documents,
        ...(this.degraded ? { degraded: true } : {}),
        ...(this.buildFailed ? { failed: true } : {}),
      },
      source: live ? 'live' : 'index',
      ...(page.incomplete ? { incomplete: page.incomplete } : {}),
    } satisfies SearchData;
    // After the answer was made: this one still says `failed`.
    this.retryFailedBuild();
    return data;
  }

  /**
   * A search after a failed build starts the build again (the web UI's Retry; a cause that has gone, such as a
   * database that was away): at once the first time, then at most every RETRY_BUILD_MS. This answer still says
   * `failed`; the next ones say `building`, then `ready`.
   */
  private retryFailedBuild(): void {
    if (!this.buildFailed || this.closed || performance.now() - this.lastBuildRetry < RETRY_BUILD_MS) return;
    this.lastBuildRetry = performance.now();
    this.deps.log.info('search index: building again after the failed build');
    void this.start();
  }

  private lastBuildRetry = -Infinity;

  /** A live session: its in-memory history (and title) searched on their own. */
  private searchLive(sessionId: string, history: Message[], q: SearchQuery) {
    const engine = new SearchEngine(this.deps.budgets ?? DEFAULT_BUDGETS);
    const s = this.deps.sessions.get(sessionId);
    engine.apply({ op: 'session', session_id: sessionId, workspace_id: s?.workspace_id ?? '', title: s?.title ?? '', time: s ? Date.parse(s.updated_at) : 0, archived: false });
    for (const m of history) {
      for (const op of searchOps({ stream: sessionId, seq: 0, epoch: '', type: 'message.created' satisfies EventType, ts: m.created_at, payload: { agent_id: 'main', message: m } })) engine.apply(op);
    }
    return { page: engine.search(q), documents: engine.documents, sessions: 1 };
  }

  /** The index's sizes and the heap of the thread that holds it (GET /api/v1/debug/memory, for bench/); {} while it cannot answer. */
  memoryStats(): Promise<Record<string, number>> {
    return this.backend.stats().catch(() => ({}));
  }

  /** Ends the worker thread as a crash would: the in-process fallback takes over (tests). */
  crashWorker(): Promise<void> {
    return this.backend.crash();
  }

  async close(): Promise<void> {
    await this.saving;
    if (this.state === 'ready' && this.dirty) await this.save();
    this.closed = true;
    await this.backend.close();
  }
}
