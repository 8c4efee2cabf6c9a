import { Worker } from 'node:worker_threads';
import type { SearchOp } from '../../projections/search/documents.ts';
import type { Position, SearchBudgets, SearchQuery } from '../../projections/search/engine.ts';
import { collectGarbage } from './gc.ts';
import { IndexHost, type Opened, type SearchReply } from './host.ts';

export type { SearchReply };

/** Where the index lives: in the server process, or in a worker thread (`[database] search = true`). */
export interface SearchBackend {
  readonly kind: 'worker' | 'in-process';
  /** Starts the index: from its snapshot when `restore`, else empty. */
  open(restore: boolean): Promise<Opened>;
  /** Applies ops and records the journal positions they bring the index to. */
  apply(ops: SearchOp[], marks: Position[]): void;
  /** Resolves once at most `max` batches wait to be applied (the build's backpressure). */
  caughtUp(max: number): Promise<void>;
  /** The build is done: spare capacity is given back. */
  built(): void;
  /** Writes the snapshot (after what was applied before this call). */
  save(): Promise<void>;
  /**
   * Replaces the worker by a fresh one that reads the snapshot just written: a build from seq 0 leaves the
   * worker's heap and allocator at their high-water mark, a thread that only loads the result does not.
   * Queries in flight are answered by the new worker. Resolves false when it could not read the snapshot.
   */
  recycle(): Promise<boolean>;
  search(q: SearchQuery): Promise<SearchReply>;
  /** The index's sizes and its thread's heap. */
  stats(): Promise<Record<string, number>>;
  close(): Promise<void>;
  /** Ends the worker as a crash would (the fallback's tests); nothing in process. */
  crash(): Promise<void>;
}

export function inProcessBackend(budgets: SearchBudgets | undefined, dir: string | undefined): SearchBackend {
  const host = new IndexHost(budgets, dir);
  return {
    kind: 'in-process',
    open: async (restore) => host.open(restore),
    apply: (ops, marks) => host.apply(ops, marks),
    caughtUp: async () => undefined,
    built: () => {
      host.trim();
      collectGarbage();
    },
    save: async () => host.save(),
    recycle: async () => true,
    search: async (q) => host.search(q),
    stats: async () => host.stats(),
    close: async () => host.close(),
    crash: async () => undefined,
  };
}

/** Messages to the worker (worker.ts); requests with an id are answered with the same id. */
export type ToWorker =
  | { t: 'ops'; ops: SearchOp[]; marks: Position[] }
  | { t: 'built' }
  | { t: 'open'; id: number; restore: boolean }
  | { t: 'save'; id: number }
  | { t: 'stats'; id: number }
  | { t: 'search'; id: number; q: SearchQuery };
export type FromWorker = { t: 'reply'; id: number; reply?: unknown; error?: string } | { t: 'applied' };

/**
 * The worker's young generation, MB (V8 splits it into two semi-spaces and a large-object space: 6 -> 2 MB
 * semi-spaces). It parses the posted ops and keeps few short-lived objects; with the daemon's 8 MB semi-spaces its
 * heap ended bench/stream-load.ts at 6-26 MB committed, 25-26 in five runs of twelve (its 16 MB young generation
 * grown; docs/benchmarks.md "Session 8 — stream-load memory"). SVC_CODE_SEARCH_WORKER_YOUNG_MB replaces it (A/B runs;
 * read at start, src/app/settings.ts). It holds only once the daemon's `--max-semi-space-size` is
 * cleared for new isolates (src/app/worker-heap.ts, called by startServer).
 */
export const DEFAULT_WORKER_YOUNG_MB = 6;

/**
 * The worker's module beside this one: `.js` in dist/; under tsx (tests, dev) `.ts`, loaded by a bootstrap
 * that registers tsx in the worker first (a worker thread does not inherit the parent's loader hooks).
 */
function startWorker(workerData: unknown, youngMb: number): Worker {
  // The worker's texts file is a raw descriptor (fs.openSync): tracked, Node closes it when the worker ends,
  // terminated (recycle, close) or crashed, so none leaks (test/search/texts-handle.test.ts). The default since
  // Node 14.6, stated here because nothing else closes it.
  const options = { workerData, trackUnmanagedFds: true, resourceLimits: { maxYoungGenerationSizeMb: youngMb } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), options);
  const url = new URL('./worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/** Ops held before the worker starts, at most (then it starts anyway). */
const HELD_OPS_MAX = 50_000;

type Held = Extract<ToWorker, { t: 'ops' } | { t: 'open' } | { t: 'built' }>;

/**
 * The index in a worker thread: ops are posted (structured clone; the server keeps no copy), requests
 * answered by id. A worker that dies fails its pending requests; `onExit` lets the service fall back.
 * The worker (about 12 MB of RSS for its own heap and loop) starts with a snapshot to read, the first message
 * document, the first query, or once HELD_OPS_MAX session/workspace ops wait: until then those small ops are
 * held here, so a daemon whose sessions have no messages yet runs no worker.
 */
export function workerBackend(
  budgets: SearchBudgets | undefined, dir: string | undefined, onExit: (err: Error) => void, youngMb = DEFAULT_WORKER_YOUNG_MB,
): SearchBackend {
  return new WorkerBackend(() => startWorker({ budgets, dir }, youngMb), onExit);
}

type Pending = { msg: Extract<ToWorker, { id: number }>; resolve: (r: any) => void; reject: (e: Error) => void };

class WorkerBackend implements SearchBackend {
  readonly kind = 'worker';
  private worker: Worker | undefined;
  /** What waits for the worker to start (see workerBackend). */
  private held: Held[] = [];
  private heldOps = 0;
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  private closed = false;
  /** Ops batches posted and not yet applied. */
  private inFlight = 0;
  private waiter: { max: number; resolve: () => void } | undefined;
  /** While a worker is being replaced: what arrives waits for the new one (after its open). */
  private parked: ToWorker[] | undefined;

  constructor(private readonly spawn: () => Worker, private readonly onExit: (err: Error) => void) {}

  async open(restore: boolean): Promise<Opened> {
    // Nothing to read: the open waits with the held ops, and the answer is known.
    if (!restore && !this.worker) {
      this.held = [{ t: 'open', id: 0, restore: false }];
      this.heldOps = 0;
      return { restored: false };
    }
    return this.request<Opened>({ t: 'open', id: this.next++, restore });
  }

  apply(ops: SearchOp[], marks: Position[]): void {
    if (this.closed || (!ops.length && !marks.length)) return;
    if (!this.worker && !this.parked && this.heldOps + ops.length <= HELD_OPS_MAX && !ops.some((op) => op.op === 'add')) {
      this.held.push({ t: 'ops', ops, marks });
      this.heldOps += ops.length;
      return;
    }
    this.post({ t: 'ops', ops, marks });
  }

  caughtUp(max: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiter = { max, resolve };
      this.wake();
    });
  }

  built(): void {
    if (this.closed) return;
    if (this.worker || this.parked) this.post({ t: 'built' });
    else this.held.push({ t: 'built' });
  }

  /** A worker never started has nothing worth saving (no message documents). */
  async save(): Promise<void> {
    if ((this.worker || this.parked) && !this.closed) await this.request<void>({ t: 'save', id: this.next++ });
  }

  async recycle(): Promise<boolean> {
    if (!this.worker || this.closed) return true;
    const old = this.worker;
    this.worker = undefined;
    this.inFlight = 0;
    const stale = [...this.pending.values()];
    this.pending.clear();
    // The old worker ends before the new one starts: its thread's malloc arena, left at the build's high-water
    // mark (glibc keeps a free arena top below the trim threshold, which the build's large frees raised), is
    // then reused by the new thread instead of a second arena beside it (docs/benchmarks.md "Session 7").
    // Requests and ops meanwhile wait, and go after the open: nothing reaches the new worker before its index.
    this.parked = [];
    await old.terminate();
    const waiting = this.parked;
    this.parked = undefined;
    if (this.closed) {
      // Closed while the old worker ended: nothing starts; what waited is answered.
      const err = new Error('search worker stopped');
      for (const p of stale) p.reject(err);
      return true;
    }
    const opening = this.request<Opened>({ t: 'open', id: this.next++, restore: true });
    const worker = this.worker!;
    for (const p of stale) {
      this.pending.set(p.msg.id, p);
      this.send(worker, p.msg);
    }
    for (const m of waiting) this.send(worker, m);
    return (await opening).restored;
  }

  search(q: SearchQuery): Promise<SearchReply> {
    return this.request<SearchReply>({ t: 'search', id: this.next++, q });
  }

  async stats(): Promise<Record<string, number>> {
    return this.worker ? this.request<Record<string, number>>({ t: 'stats', id: this.next++ }) : {};
  }

  async close(): Promise<void> {
    this.closed = true;
    this.held = [];
    this.parked = undefined;
    const err = new Error('search worker stopped');
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.wake();
    await this.worker?.terminate();
  }

  async crash(): Promise<void> {
    await this.started().terminate();
  }

  private wake(): void {
    const w = this.waiter;
    if (w && (this.inFlight <= w.max || this.closed)) {
      this.waiter = undefined;
      w.resolve();
    }
  }

  private fail(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    if (!this.closed) this.onExit(err);
    this.closed = true;
    this.wake();
  }

  private send(w: Worker, m: ToWorker): void {
    if (m.t === 'ops') this.inFlight += 1;
    w.postMessage(m);
  }

  private post(m: ToWorker): void {
    if (this.parked) this.parked.push(m);
    else this.send(this.started(), m);
  }

  private request<T>(m: Extract<ToWorker, { id: number }>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(new Error('search worker stopped'));
      this.pending.set(m.id, { msg: m, resolve, reject });
      this.post(m);
    });
  }

  /** The worker, started with what was held on first need. */
  private started(): Worker {
    if (this.worker) return this.worker;
    const w = (this.worker = this.spawn());
    w.unref();
    w.on('message', (m: FromWorker) => w === this.worker && this.onMessage(m));
    w.on('error', (err) => w === this.worker && this.fail(err));
    w.on('exit', (code) => w === this.worker && this.fail(new Error(`search worker exited (${code})`)));
    for (const m of this.held) this.send(w, m);
    this.held = [];
    this.heldOps = 0;
    return w;
  }

  private onMessage(m: FromWorker): void {
    if (m.t === 'applied') {
      this.inFlight -= 1;
      this.wake();
      return;
    }
    const p = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (m.error !== undefined) p?.reject(new Error(m.error));
    else p?.resolve(m.reply);
  }
}
