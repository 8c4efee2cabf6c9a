import { Worker } from 'node:worker_threads';
import type { SearchOp } from '../../projections/search/documents.ts';
import { collectGarbage } from './gc.ts';
import { SearchEngine, type QueryError, type SearchBudgets, type SearchPage, type SearchQuery } from '../../projections/search/engine.ts';

/** A search answer with the index's size when it was computed. */
export type SearchReply = { page: SearchPage | QueryError; documents: number; sessions: number };

/** Where the index lives: in the server process, or in a worker thread (`[database] search = true`). */
export interface SearchBackend {
  readonly kind: 'worker' | 'in-process';
  apply(ops: SearchOp[]): void;
  /** Resolves once at most `max` batches wait to be applied (the build's backpressure). */
  caughtUp(max: number): Promise<void>;
  /** The build is done: spare capacity is given back. */
  built(): void;
  search(q: SearchQuery): Promise<SearchReply>;
  close(): Promise<void>;
  /** Ends the worker as a crash would (the fallback's tests); nothing in process. */
  crash(): Promise<void>;
}

export function inProcessBackend(budgets?: SearchBudgets): SearchBackend {
  const engine = new SearchEngine(budgets);
  return {
    kind: 'in-process',
    apply: (ops) => {
      for (const op of ops) engine.apply(op);
    },
    caughtUp: async () => undefined,
    built: () => {
      engine.trim();
      collectGarbage();
    },
    search: async (q) => ({ page: engine.search(q), documents: engine.documents, sessions: engine.sessionCount }),
    close: async () => undefined,
    crash: async () => undefined,
  };
}

/** Messages to the worker (worker.ts). */
export type ToWorker = { t: 'ops'; ops: SearchOp[] } | { t: 'built' } | { t: 'search'; id: number; q: SearchQuery };
export type FromWorker = { t: 'reply'; id: number; reply: SearchReply } | { t: 'applied' };

/**
 * The worker's module beside this one: `.js` in dist/; under tsx (tests, dev) `.ts`, loaded by a bootstrap
 * that registers tsx in the worker first (a worker thread does not inherit the parent's loader hooks).
 */
function startWorker(workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), { workerData });
  const url = new URL('./worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

/** Ops held before the worker starts, at most (then it starts anyway). */
const HELD_OPS_MAX = 50_000;

/**
 * The index in a worker thread: ops are posted (structured clone; the server keeps no copy), queries
 * answered by id. A worker that dies fails its pending queries; `onExit` lets the service fall back.
 * The worker (about 12 MB of RSS for its own heap and loop) starts with the first message document, the
 * first query, or once HELD_OPS_MAX session/workspace ops wait: until then those small ops are held here,
 * so a daemon whose sessions have no messages yet runs no worker.
 */
export function workerBackend(budgets: SearchBudgets | undefined, onExit: (err: Error) => void): SearchBackend {
  let worker: Worker | undefined;
  let held: SearchOp[][] = [];
  let heldOps = 0;
  let builtPending = false;
  const pending = new Map<number, { resolve: (r: SearchReply) => void; reject: (e: Error) => void }>();
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
  const post = (ops: SearchOp[]) => {
    inFlight += 1;
    worker!.postMessage({ t: 'ops', ops } satisfies ToWorker);
  };
  const started = (): Worker => {
    if (worker) return worker;
    worker = startWorker({ budgets });
    worker.unref();
    worker.on('message', (m: FromWorker) => {
      if (m.t === 'applied') {
        inFlight -= 1;
        wake();
        return;
      }
      const p = pending.get(m.id);
      pending.delete(m.id);
      p?.resolve(m.reply);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`search worker exited (${code})`)));
    for (const ops of held) post(ops);
    held = [];
    heldOps = 0;
    if (builtPending) worker.postMessage({ t: 'built' } satisfies ToWorker);
    return worker;
  };
  return {
    kind: 'worker',
    apply: (ops) => {
      if (closed || !ops.length) return;
      if (!worker && heldOps + ops.length <= HELD_OPS_MAX && !ops.some((op) => op.op === 'add')) {
        held.push(ops);
        heldOps += ops.length;
        return;
      }
      started();
      post(ops);
    },
    caughtUp: (max) => new Promise<void>((resolve) => {
      waiter = { max, resolve };
      wake();
    }),
    built: () => {
      if (closed) return;
      if (worker) worker.postMessage({ t: 'built' } satisfies ToWorker);
      else builtPending = true;
    },
    search: (q) => new Promise<SearchReply>((resolve, reject) => {
      if (closed) return reject(new Error('search worker stopped'));
      const id = next++;
      pending.set(id, { resolve, reject });
      started().postMessage({ t: 'search', id, q } satisfies ToWorker);
    }),
    close: async () => {
      closed = true;
      held = [];
      await worker?.terminate();
    },
    crash: async () => {
      await started().terminate();
    },
  };
}
