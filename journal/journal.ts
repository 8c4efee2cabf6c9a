import { EventEmitter } from 'node:events';
import { ulid } from 'ulid';
import { eventKey, metaKey, padSeq } from './keys.ts';
import { JournalStoreError } from './errors.ts';
import { LevelStore } from './level-store.ts';
import type { Db } from './slots.ts';
import { StreamConflictError, type EncodedOp, type JournalStore, type KeyRange, type WriteUnit } from './store.ts';
import type { JournalEvent, PendingEvent, ProjectionWrite, StoredEvent, StreamHead } from './types.ts';
import { headsBefore, resequence, restoreHeads, sequence, type Redo, type Requeued, type SequenceContext } from './sequence.ts';
import { encode, encodeOps, toEvent, type BatchOp } from './encode.ts';


interface QueuedBatch extends Requeued {
  resolve: (events: JournalEvent[]) => void;
}

export interface JournalOptions {
  /** Where the journal is stored (journal/store.ts); or `db`, a LevelDB slot's database. */
  store?: JournalStore;
  db?: Db;
  /** Stamps each event's `ts` and a new stream's `created_at` (default: the system clock). */
  clock?: { now(): Date };
  /** Mints a new stream's epoch (default: a fresh ULID). */
  newEpoch?: () => string;
  /**
   * fsync each group-commit batch before any append in it is acknowledged (default true: power-loss durability,
   * one fsync for every append waiting at that moment); false: kill -9 durability only (docs/journal.md "Durability").
   */
  sync?: boolean;
  /**
   * Records that an event of `stream` reached a stage (`ja:` accepted, `jw:` batch written, `jd:` on disk),
   * for the prompt latency trace; absent (the default) costs one check per append.
   */
  trace?: (stream: string, label: string) => void;
}

export interface AppendOptions {
  recheck?: () => PendingEvent[];
}

/** Where a `committed` batch came from: this process, or another node on the shared PostgreSQL journal. */
export type CommitOrigin = 'local' | 'remote';

/** Derives projection writes for events about to be appended (runs before the batch is written). */
export type Deriver = (events: JournalEvent[]) => ProjectionWrite[];

/**
 * Catches this node up with the other writers' commits while none can commit, then runs `then` under that lock:
 * what `then` writes with `write` commits when the resync resolves (journal/pg/follower.ts).
 */
export type Resync = (then: (write: (units: WriteUnit[]) => Promise<void>) => Promise<void>) => Promise<void>;

/**
 * The append-only log: per-stream strictly increasing seq, an epoch per stream,
 * group commit (appends that arrive while a batch is being written share the next
 * batch), and a `committed` event emitted only once the batch is on disk.
 */
export class Journal extends EventEmitter {
  readonly store: JournalStore;
  private readonly clock: { now(): Date };
  private readonly newEpoch: () => string;
  private readonly sync: boolean;
  private heads = new Map<string, StreamHead>();
  /** Each stream's seq as committed (the heads run ahead of it by the appends not yet written). */
  private durable = new Map<string, number>();
  private queue: QueuedBatch[] = [];
  private flushing: Promise<void> | null = null;
  private deriver: Deriver = () => [];
  private reload: () => Promise<void> = async () => undefined;
  private resync: Resync | undefined;
  private recovering = false;
  private failed: JournalStoreError | null = null;
  private readonly trace: ((stream: string, label: string) => void) | undefined;

  constructor(opts: JournalOptions) {
    super();
    if (opts.store) this.store = opts.store;
    else if (opts.db) this.store = new LevelStore(opts.db);
    else throw new Error('Journal: a store or a db is required');
    this.clock = opts.clock ?? { now: () => new Date() };
    this.newEpoch = opts.newEpoch ?? (() => ulid());
    this.sync = opts.sync ?? true;
    this.trace = opts.trace;
  }

  async load(): Promise<void> {
    this.heads = await this.store.loadHeads();
    this.durable = new Map([...this.heads].map(([k, h]) => [k, h.seq]));
  }

  /** `reload`: the projections' state read again from the store's records (after a conflict: journal `recover`). */
  setDeriver(deriver: Deriver, reload?: () => Promise<void>): void {
    this.deriver = deriver;
    if (reload) this.reload = reload;
  }

  /**
   * The shared PostgreSQL journal's follower (journal/pg/follower.ts): `resync` catches this node up with every
   * other node's commits while none can commit, with the projections reloaded from the store first (`reloadProjections`).
   * Without one (LevelDB: one writer) a conflict fails the journal like any store error.
   */
  setResync(resync: Resync | undefined): void {
    this.resync = resync;
  }

  /** The follower's `reachNow`: resolves once every commit made before the call is followed here. */
  setCatchUp(catchUp: (() => Promise<void>) | undefined): void {
    this.catchingUp = catchUp;
  }

  /**
   * Resolves once this node has followed every commit made (by any node) before the call: a node about to write a
   * session another node wrote last (a lease taken over) reads those writes first. At once without a follower
   * (LevelDB, print mode): nothing to follow.
   */
  catchUp(): Promise<void> {
    return this.catchingUp?.() ?? Promise.resolve();
  }

  private catchingUp: (() => Promise<void>) | undefined;

  /** The projections' in-memory state read again from the store's records (the follower's resync calls it). */
  reloadProjections = (): Promise<void> => this.reload();

  /** A copy of the stream's head (seq of its last event and its epoch). */
  head(stream: string): StreamHead | undefined {
    const h = this.heads.get(stream);
    return h && { ...h };
  }

  /** The seq of the stream's last event (0 when none), without copying the head (read per streamed delta). */
  headSeq(stream: string): number {
    return this.heads.get(stream)?.seq ?? 0;
  }

  /** The seq of the stream's last committed event (0 when none): what the follower knows it has (journal/pg/follower.ts). */
  durableSeq(stream: string): number {
    return this.durable.get(stream) ?? 0;
  }

  hasStream(stream: string): boolean {
    return this.heads.has(stream);
  }

  streams(): IterableIterator<string> {
    return this.heads.keys();
  }

  /**
   * Appends events atomically (one batch); resolves once they are on disk. Every record is encoded first: one that
   * cannot be encoded refuses this append alone (JournalEncodeError) before any head or projection moves.
   * `o.recheck`: the command's events decided again from the caught-up read models when the append is retried after
   * a conflict on a shared stream (it throws the command's refusal, which refuses the append; journal `recover`).
   */
  append(pending: PendingEvent[], o?: AppendOptions): Promise<JournalEvent[]> {
    try {
      return this.appendNow(pending, o);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * `append`, but a refusal (a record that cannot be encoded, or the journal
   * already failed) throws here and now: a caller that acts on an append before
   * it is on disk (prompt intake queues the prompt) knows at once whether it was taken.
   */
  appendNow(pending: PendingEvent[], o?: AppendOptions): Promise<JournalEvent[]> {
    return this.appendWith(pending, [], o?.recheck);
  }

  /**
   * Removes a whole stream (its events and head) and the keys of `ranges` (projection records of
   * that stream) in the one batch that appends `pending` on other streams: a reader sees the stream
   * and the events announcing its removal together, or neither. The store lists what it deletes when
   * the batch is written.
   */
  async removeStream(stream: string, pending: PendingEvent[], ranges: KeyRange[] = []): Promise<JournalEvent[]> {
    if (pending.some((p) => p.stream === stream)) throw new Error('removeStream: an event on the removed stream');
    const head = this.heads.get(stream);
    this.heads.delete(stream);
    try {
      return await this.appendWith(pending, [{ stream, ranges }]);
    } catch (err) {
      if (head && !this.heads.has(stream)) this.heads.set(stream, head);
      throw err;
    }
  }

  private appendWith(pending: PendingEvent[], removed: WriteUnit['removed'], recheck?: AppendOptions['recheck']): Promise<JournalEvent[]> {
    if (this.trace) for (const p of pending) this.trace(p.stream, `ja:${p.type}`);
    if (this.failed) throw this.failed;
    const ts = this.clock.now().toISOString();
    const texts = pending.map((p) => encode(`e!${p.stream}!(next)`, { type: p.type, ts, payload: p.payload }));
    return this.accept({ kind: 'append', pending, ts, texts, removed, recheck });
  }

  /** Numbers and derives `redo` now (a deriver error throws here), or, while recovering from a conflict, once it is over. */
  private accept(redo: Redo): Promise<JournalEvent[]> {
    if (this.recovering) return this.enqueue({ events: [], heads: [], records: [], removed: [] }, [], redo, false);
    const { unit, events } = sequence(redo, this.context());
    return this.enqueue(unit, events, redo, true);
  }

  private context(): SequenceContext {
    return { heads: this.heads, newEpoch: this.newEpoch, derive: (events) => encodeOps(this.deriver(events)) };
  }

  /**
   * Writes a whole stream copied from another slot, keeping its seq and epoch
   * (so client cursors stay valid). The stream must not exist here yet.
   */
  importStream(stream: string, head: StreamHead, records: StoredEvent[], extra: BatchOp[] = []): Promise<JournalEvent[]> {
    if (this.heads.has(stream)) return Promise.resolve([]);
    if (this.failed) return Promise.reject(this.failed);
    try {
      const texts = records.map((r, i) => encode(eventKey(stream, i + 1), { type: r.type, ts: r.ts, payload: r.payload, imported: true }));
      return this.accept({ kind: 'import', stream, head, records, texts, extra: encodeOps(extra) });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Appends events copied from another slot to an existing stream (global, gui):
   * fresh seqs here, flagged `imported` so they are never broadcast.
   */
  appendImported(stream: string, records: StoredEvent[]): Promise<JournalEvent[]> {
    if (!records.length) return Promise.resolve([]);
    if (this.failed) return Promise.reject(this.failed);
    try {
      const texts = records.map((r) => encode(`e!${stream}!(next)`, { type: r.type, ts: r.ts, payload: r.payload, imported: true }));
      // One ts per event (each keeps its own): numbered like an append, all on `stream`.
      const pending = records.map((r) => ({ stream, type: r.type, payload: r.payload }));
      return this.accept({ kind: 'append', pending, ts: records[0].ts, texts, removed: [], imported: true, tss: records.map((r) => r.ts) });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Events another node committed to the shared PostgreSQL journal (journal/pg/follower.ts), in commit order and
   * contiguous per stream past this node's heads (the follower checks): the heads advance (`created`: the head of a
   * stream new here), the projections apply them (their records were written in that node's own transaction, so the
   * writes are dropped) and they leave as `committed` with origin `remote`.
   */
  applyRemote(events: JournalEvent[], created: ReadonlyMap<string, StreamHead>, derive = true): void {
    let applied = 0;
    let failure: unknown;
    for (const e of events) {
      // One event at a time: a projection that throws stops the batch at that event, with the heads before it, so
      // the follower reads it again (and only it and what follows) on its retry; nothing is skipped.
      if (derive) {
        try {
          this.deriver([e]);
        } catch (err) {
          failure = err;
          break;
        }
      }
      let head = this.heads.get(e.stream);
      if (!head) this.heads.set(e.stream, (head = { ...created.get(e.stream)!, seq: 0 }));
      head.seq = e.seq;
      this.durable.set(e.stream, e.seq);
      applied++;
    }
    if (applied) this.emit('committed', applied === events.length ? events : events.slice(0, applied), 'remote' satisfies CommitOrigin);
    if (failure !== undefined) throw failure;
  }

  /** A stream another node removed (a session deleted): its head goes, as a local `removeStream` drops it. */
  removeRemote(stream: string): void {
    for (const m of [this.heads, this.durable]) m.delete(stream);
  }

  /** Every stream head of this database (stream -> head). */
  allHeads(): Map<string, StreamHead> {
    return new Map([...this.heads].map(([k, h]) => [k, { ...h }]));
  }

  /** Durable events of `stream` with fromSeq <= seq <= toSeq, oldest first. */
  async readRange(stream: string, fromSeq: number, toSeq = Number.MAX_SAFE_INTEGER, limit = -1): Promise<JournalEvent[]> {
    const head = this.heads.get(stream);
    if (!head) return [];
    const hi = Math.min(toSeq, head.seq);
    const lo = Math.max(1, fromSeq);
    if (lo > hi) return [];
    const rows = await this.store.readEvents(stream, lo, hi, limit);
    return rows.map((r) => toEvent(stream, r.seq, head.epoch, r.event));
  }

  /** Every stored event of every stream (LevelDB: stream, then seq; PostgreSQL: global order). For rebuilds. */
  async *scanAll(): AsyncGenerator<JournalEvent> {
    for await (const { stream, seq, event } of this.store.scanAll()) {
      yield toEvent(stream, seq, this.heads.get(stream)?.epoch ?? '', event);
    }
  }

  async readStream(stream: string): Promise<StoredEvent[]> {
    return (await this.store.readEvents(stream, 1, Number.MAX_SAFE_INTEGER, -1)).map((r) => r.event);
  }

  async getMeta<T>(key: string): Promise<T | undefined> {
    return (await this.store.get(metaKey(key))) as T | undefined;
  }

  putMeta(key: string, value: unknown): Promise<void> {
    return this.writeRaw([{ type: 'put', key: metaKey(key), value }]);
  }

  /** Direct batch for projection maintenance (rebuilds); not part of the event log. */
  writeRaw(ops: BatchOp[]): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    let encoded: EncodedOp[];
    try {
      encoded = encodeOps(ops);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue({ events: [], heads: [], records: encoded, removed: [] }, []).then(() => undefined);
  }

  /** The store failure that stopped writes, if any (cleared only by a restart). */
  get failure(): JournalStoreError | null {
    return this.failed;
  }

  /** Waits until every queued batch is on disk. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.store.close();
  }

  private enqueue(unit: WriteUnit, events: JournalEvent[], redo?: Redo, sequenced = true): Promise<JournalEvent[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ unit, events, redo, sequenced, resolve, reject });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      if (this.trace) for (const b of batch) for (const e of b.events) this.trace(e.stream, `jw:${e.type}`);
      try {
        await this.store.write(batch.map((b) => b.unit), this.sync);
      } catch (err) {
        if (err instanceof StreamConflictError && this.resync) await this.recover(batch);
        else this.fail(err, batch);
        continue;
      }
      this.settle(batch);
    }
    this.flushing = null;
  }

  /** The batch is on disk: its events leave as `committed`, then each append is acknowledged. */
  private settle(batch: QueuedBatch[]): void {
    if (this.trace) for (const b of batch) for (const e of b.events) this.trace(e.stream, `jd:${e.type}`);
    const events = batch.length === 1 ? batch[0].events : batch.flatMap((b) => b.events);
    for (const b of batch) for (const r of b.unit.removed) this.durable.delete(r.stream);
    for (const e of events) this.durable.set(e.stream, e.seq);
    if (events.length) this.emit('committed', events);
    for (const b of batch) b.resolve(b.events);
  }

  /** The store failed: stop writing until a restart (every value is JSON text already, so only the store fails). */
  private fail(err: unknown, batch: QueuedBatch[]): void {
    const failure = (this.failed = err instanceof JournalStoreError ? err : new JournalStoreError(err));
    for (const b of batch) b.reject(failure);
    for (const b of this.queue) b.reject(failure);
    this.queue = [];
    this.emit('failed', failure);
  }

  /**
   * A flush refused because another node moved a stream's head (the shared PostgreSQL journal; docs/journal.md
   * "Concurrent writers"). Every accepted append not yet written (the refused batch and the queue) is taken back:
   * the heads go back to where these appends found them, and `resync` (the follower) catches this node up while no
   * other node can commit, with the projections reloaded from the store first (which drops what these appends
   * applied when they were accepted). Still under that lock, each is numbered and derived again from the new heads
   * and written: nothing can move a head in between, so the retry does not race again. An append on a single-writer
   * stream (a session) that another node wrote to is refused alone (StreamConflictError). A conflict never fails
   * the journal; the database failing during this does, as on any write.
   */
  private async recover(failed: QueuedBatch[]): Promise<void> {
    let all = [...failed, ...this.queue];
    this.queue = [];
    this.recovering = true;
    let ready: QueuedBatch[] = [];
    try {
      const before = headsBefore(all.filter((b) => b.sequenced).map((b) => b.unit));
      restoreHeads(this.heads, before);
      await this.resync!(async (write) => {
        const moved = new Set<string>();
        for (const [stream, seq] of before) if (this.heads.get(stream)?.seq !== seq) moved.add(stream);
        all = [...all, ...this.queue];
        this.queue = [];
        ready = resequence(all, moved, this.context());
        this.recovering = false;
        if (ready.length) await write(ready.map((b) => b.unit));
      });
    } catch (err) {
      this.recovering = false;
      return this.fail(err, all);
    }
    this.settle(ready);
  }
}

export { padSeq, toEvent };
