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
 * read by startServer, searchWorkerYoungMbFromEnv). It holds only once the daemon's `--max-semi-space-size` is
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
  let worker: Worker | undefined;
  let held: Held[] = [];
  let heldOps = 0;
  const pending = new Map<number, { msg: Extract<ToWorker, { id: number }>; resolve: (r: any) => void; reject: (e: Error) => void }>();
  let next = 1;
  let closed = false;
  let inFlight = 0;
  let waiter: { max: number; resolve: () => void } | undefined;
  const wake = () => {
    if (waiter && (inFlight <= waiter.max || closed)) {
      const w = waiter;
      waiter = undefined;
      w.resolve();
    }
  };
  const fail = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    if (!closed) onExit(err);
    closed = true;
    wake();
  };
  const send = (w: Worker, m: ToWorker) => {
    if (m.t === 'ops') inFlight += 1;
    w.postMessage(m);
  };
  /** While a worker is being replaced: what arrives waits for the new one (after its open). */
  let parked: ToWorker[] | undefined;
  const post = (m: ToWorker) => {
    if (parked) parked.push(m);
    else send(started(), m);
  };
  const started = (): Worker => {
    if (worker) return worker;
    const w = (worker = startWorker({ budgets, dir }, youngMb));
    w.unref();
    w.on('message', (m: FromWorker) => {
      if (w !== worker) return;
      if (m.t === 'applied') {
        inFlight -= 1;
        wake();
        return;
      }
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error !== undefined) p?.reject(new Error(m.error));
      else p?.resolve(m.reply);
    });
    w.on('error', (err) => w === worker && fail(err));
    w.on('exit', (code) => w === worker && fail(new Error(`search worker exited (${code})`)));
    for (const m of held) send(w, m);
    held = [];
    heldOps = 0;
    return w;
  };
  const request = <T>(m: Extract<ToWorker, { id: number }>): Promise<T> => new Promise<T>((resolve, reject) => {
    if (closed) return reject(new Error('search worker stopped'));
    pending.set(m.id, { msg: m, resolve, reject });
    post(m);
  });
  return {
    kind: 'worker',
    open: async (restore) => {
      // Nothing to read: the open waits with the held ops, and the answer is known.
      if (!restore && !worker) {
        held = [{ t: 'open', id: 0, restore: false }];
        heldOps = 0;
        return { restored: false };
      }
      return request<Opened>({ t: 'open', id: next++, restore });
    },
    apply: (ops, marks) => {
      if (closed || (!ops.length && !marks.length)) return;
      if (!worker && !parked && heldOps + ops.length <= HELD_OPS_MAX && !ops.some((op) => op.op === 'add')) {
        held.push({ t: 'ops', ops, marks });
        heldOps += ops.length;
        return;
      }
      post({ t: 'ops', ops, marks });
    },
    caughtUp: (max) => new Promise<void>((resolve) => {
      waiter = { max, resolve };
      wake();
    }),
    built: () => {
      if (closed) return;
      if (worker || parked) post({ t: 'built' });
      else held.push({ t: 'built' });
    },
    // A worker never started has nothing worth saving (no message documents).
    save: async () => {
      if ((worker || parked) && !closed) await request<void>({ t: 'save', id: next++ });
    },
    recycle: async () => {
      if (!worker || closed) return true;
      const old = worker;
      worker = undefined;
      inFlight = 0;
      const stale = [...pending.values()];
      pending.clear();
      // The old worker ends before the new one starts: its thread's malloc arena, left at the build's high-water
      // mark (glibc keeps a free arena top below the trim threshold, which the build's large frees raised), is
      // then reused by the new thread instead of a second arena beside it (docs/benchmarks.md "Session 7").
      // Requests and ops meanwhile wait, and go after the open: nothing reaches the new worker before its index.
      parked = [];
      await old.terminate();
      const waiting = parked;
      parked = undefined;
      if (closed) {
        // Closed while the old worker ended: nothing starts; what waited is answered.
        const err = new Error('search worker stopped');
        for (const p of stale) p.reject(err);
        return true;
      }
      const opening = request<Opened>({ t: 'open', id: next++, restore: true });
      for (const p of stale) {
        pending.set(p.msg.id, p);
        send(worker!, p.msg);
      }
      for (const m of waiting) send(worker!, m);
      return (await opening).restored;
    },
    search: (q) => request<SearchReply>({ t: 'search', id: next++, q }),
    stats: async () => (worker ? request<Record<string, number>>({ t: 'stats', id: next++ }) : {}),
    close: async () => {
      closed = true;
      held = [];
      parked = undefined;
      const err = new Error('search worker stopped');
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      wake();
      await worker?.terminate();
    },
    crash: async () => {
      await started().terminate();
    },
  };
}
