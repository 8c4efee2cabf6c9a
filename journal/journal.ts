import { EventEmitter } from 'node:events';
import { ulid } from 'ulid';
import { eventKey, metaKey, padSeq } from './keys.ts';
import { JournalEncodeError, JournalStoreError } from './errors.ts';
import { LevelStore } from './level-store.ts';
import type { Db } from './slots.ts';
import type { EncodedOp, HeadWrite, JournalStore, KeyRange, WriteUnit } from './store.ts';
import type { JournalEvent, PendingEvent, ProjectionWrite, StoredEvent, StreamHead } from './types.ts';

type BatchOp = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

interface QueuedBatch {
  unit: WriteUnit;
  events: JournalEvent[];
  resolve: (events: JournalEvent[]) => void;
  reject: (err: Error) => void;
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

/** Where a `committed` batch came from: this process, or another node on the shared PostgreSQL journal. */
export type CommitOrigin = 'local' | 'remote';

/** Derives projection writes for events about to be appended (runs before the batch is written). */
export type Deriver = (events: JournalEvent[]) => ProjectionWrite[];

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
  private queue: QueuedBatch[] = [];
  private flushing: Promise<void> | null = null;
  private deriver: Deriver = () => [];
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
  }

  setDeriver(deriver: Deriver): void {
    this.deriver = deriver;
  }

  /** A copy of the stream's head (seq of its last event and its epoch). */
  head(stream: string): StreamHead | undefined {
    const h = this.heads.get(stream);
    return h && { ...h };
  }

  /** The seq of the stream's last event (0 when none), without copying the head (read per streamed delta). */
  headSeq(stream: string): number {
    return this.heads.get(stream)?.seq ?? 0;
  }

  hasStream(stream: string): boolean {
    return this.heads.has(stream);
  }

  streams(): IterableIterator<string> {
    return this.heads.keys();
  }

  /**
   * Appends events atomically (one LevelDB batch); resolves once they are on disk.
   * Every record is encoded first: an event that cannot be encoded refuses this
   * append alone (JournalEncodeError) before any head or projection moves.
   */
  append(pending: PendingEvent[]): Promise<JournalEvent[]> {
    try {
      return this.appendNow(pending);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * `append`, but a refusal (a record that cannot be encoded, or the journal
   * already failed) throws here and now: a caller that acts on an append before
   * it is on disk (prompt intake queues the prompt) knows at once whether it was taken.
   */
  appendNow(pending: PendingEvent[]): Promise<JournalEvent[]> {
    return this.appendWith(pending, []);
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

  private appendWith(pending: PendingEvent[], removed: WriteUnit['removed']): Promise<JournalEvent[]> {
    if (this.trace) for (const p of pending) this.trace(p.stream, `ja:${p.type}`);
    if (this.failed) throw this.failed;
    const ts = this.clock.now().toISOString();
    const values = pending.map((p) => encode(`e!${p.stream}!(next)`, { type: p.type, ts, payload: p.payload }));
    const touched = new Map<string, StreamHead>();
    const before = new Map<string, number | undefined>();
    const events: JournalEvent[] = pending.map((p) => {
      let head = this.heads.get(p.stream);
      if (!before.has(p.stream)) before.set(p.stream, head?.seq);
      if (!head) {
        head = { epoch: this.newEpoch(), seq: 0, created_at: ts };
        this.heads.set(p.stream, head);
      }
      head.seq += 1;
      touched.set(p.stream, head);
      return { stream: p.stream, seq: head.seq, epoch: head.epoch, type: p.type, ts, payload: p.payload };
    });
    const heads = [...touched].map(([stream, head]): HeadWrite => ({ stream, head: { ...head }, expected: before.get(stream) }));
    let records: EncodedOp[];
    try {
      records = encodeOps(this.deriver(events));
    } catch (err) {
      // Projection records hold parts of events that just encoded, so this is a projection bug, not bad
      // input: the append is refused and the heads are put back (no seq gap); the store is untouched.
      this.restoreHeads(before);
      throw err;
    }
    return this.enqueue({ events: encodedEvents(events, values), heads, records, removed }, events);
  }

  private restoreHeads(before: Map<string, number | undefined>): void {
    for (const [stream, seq] of before) {
      if (seq === undefined) this.heads.delete(stream);
      else this.heads.get(stream)!.seq = seq;
    }
  }

  /**
   * Writes a whole stream copied from another slot, keeping its seq and epoch
   * (so client cursors stay valid). The stream must not exist here yet.
   */
  importStream(stream: string, head: StreamHead, records: StoredEvent[], extra: BatchOp[] = []): Promise<JournalEvent[]> {
    if (this.heads.has(stream)) return Promise.resolve([]);
    if (this.failed) return Promise.reject(this.failed);
    const events: JournalEvent[] = records.map((r, i) => ({
      stream, seq: i + 1, epoch: head.epoch, type: r.type, ts: r.ts, payload: r.payload, imported: true,
    }));
    let unit: WriteUnit;
    try {
      const values = events.map((e) => encode(eventKey(stream, e.seq), stored(e)));
      unit = { events: encodedEvents(events, values), heads: [{ stream, head: { ...head }, expected: undefined }], records: encodeOps(extra), removed: [] };
    } catch (err) {
      return Promise.reject(err);
    }
    this.heads.set(stream, { ...head });
    try {
      unit.records.push(...encodeOps(this.deriver(events)));
    } catch (err) {
      this.heads.delete(stream);
      return Promise.reject(err);
    }
    return this.enqueue(unit, events);
  }

  /**
   * Appends events copied from another slot to an existing stream (global, gui):
   * fresh seqs here, flagged `imported` so they are never broadcast.
   */
  appendImported(stream: string, records: StoredEvent[]): Promise<JournalEvent[]> {
    if (!records.length) return Promise.resolve([]);
    if (this.failed) return Promise.reject(this.failed);
    let values: string[];
    try {
      values = records.map((r) => encode(`e!${stream}!(next)`, { type: r.type, ts: r.ts, payload: r.payload, imported: true }));
    } catch (err) {
      return Promise.reject(err);
    }
    const before = new Map([[stream, this.heads.get(stream)?.seq]]);
    let head = this.heads.get(stream);
    if (!head) {
      head = { epoch: this.newEpoch(), seq: 0, created_at: records[0].ts };
      this.heads.set(stream, head);
    }
    const events: JournalEvent[] = records.map((r) => {
      head!.seq += 1;
      return { stream, seq: head!.seq, epoch: head!.epoch, type: r.type, ts: r.ts, payload: r.payload, imported: true };
    });
    const heads: HeadWrite[] = [{ stream, head: { ...head }, expected: before.get(stream) }];
    let derived: EncodedOp[];
    try {
      derived = encodeOps(this.deriver(events));
    } catch (err) {
      this.restoreHeads(before);
      return Promise.reject(err);
    }
    return this.enqueue({ events: encodedEvents(events, values), heads, records: derived, removed: [] }, events);
  }

  /**
   * Events another node committed to the shared PostgreSQL journal (journal/pg/follower.ts), in commit order and
   * contiguous per stream past this node's heads (the follower checks): the heads advance (`created`: the head of a
   * stream new here), the projections apply them (their records were written in that node's own transaction, so the
   * writes are dropped) and they leave as `committed` with origin `remote`.
   */
  applyRemote(events: JournalEvent[], created: ReadonlyMap<string, StreamHead>): void {
    for (const e of events) {
      let head = this.heads.get(e.stream);
      if (!head) this.heads.set(e.stream, (head = { ...created.get(e.stream)!, seq: 0 }));
      head.seq = e.seq;
    }
    this.deriver(events);
    this.emit('committed', events, 'remote' satisfies CommitOrigin);
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

  private enqueue(unit: WriteUnit, events: JournalEvent[]): Promise<JournalEvent[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ unit, events, resolve, reject });
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
        if (this.trace) for (const b of batch) for (const e of b.events) this.trace(e.stream, `jd:${e.type}`);
      } catch (err) {
        // Only the store fails here (every value is JSON text already): stop writing until a restart.
        const failure = (this.failed = new JournalStoreError(err));
        for (const b of batch) b.reject(failure);
        for (const b of this.queue) b.reject(failure);
        this.queue = [];
        this.emit('failed', failure);
        break;
      }
      const events = batch.length === 1 ? batch[0].events : batch.flatMap((b) => b.events);
      if (events.length) this.emit('committed', events);
      for (const b of batch) b.resolve(b.events);
    }
    this.flushing = null;
  }

}

function encodedEvents(events: JournalEvent[], texts: string[]) {
  return events.map((e, i) => ({ stream: e.stream, seq: e.seq, type: e.type, text: texts[i] }));
}

/** JSON text of a record; JournalEncodeError when it has none (nested too deeply, too large, a cycle, undefined). */
function encode(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new JournalEncodeError(key, err);
  }
  if (text === undefined) throw new JournalEncodeError(key, new Error('no JSON representation'));
  return text;
}

function encodeOps(ops: readonly BatchOp[]): EncodedOp[] {
  return ops.map((op) => (op.type === 'del' ? op : { type: 'put', key: op.key, value: encode(op.key, op.value) }));
}

function stored(e: JournalEvent): StoredEvent {
  return e.imported ? { type: e.type, ts: e.ts, payload: e.payload, imported: true } : { type: e.type, ts: e.ts, payload: e.payload };
}

/** A stored event as readers get it (its stream, seq and the stream's epoch added). */
export function toEvent(stream: string, seq: number, epoch: string, v: StoredEvent): JournalEvent {
  const e: JournalEvent = { stream, seq, epoch, type: v.type, ts: v.ts, payload: v.payload };
  if (v.imported) e.imported = true;
  return e;
}

export { padSeq };
