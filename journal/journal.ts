import { EventEmitter } from 'node:events';
import { ulid } from 'ulid';
import {
  EVENT_RANGE,
  HEAD_RANGE,
  eventKey,
  eventRange,
  headKey,
  metaKey,
  padSeq,
  parseEventKey,
} from './keys.ts';
import type { Db } from './slots.ts';
import { mark, tracing } from '../src/engine/trace.ts';
import type { JournalEvent, PendingEvent, ProjectionWrite, StoredEvent, StreamHead } from './types.ts';

/** Ranges up to this many events are read with one getMany. */
const GET_MANY_MAX = 64;

type BatchOp = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

interface QueuedBatch {
  ops: BatchOp[];
  events: JournalEvent[];
  resolve: (events: JournalEvent[]) => void;
  reject: (err: Error) => void;
}

export interface JournalOptions {
  db: Db;
  now?: () => Date;
  /** fsync each batch (power-loss durability); kill -9 durability holds either way. */
  sync?: boolean;
}

/** Derives projection writes for events about to be appended (runs before the batch is written). */
export type Deriver = (events: JournalEvent[]) => ProjectionWrite[];

/**
 * The append-only log: per-stream strictly increasing seq, an epoch per stream,
 * group commit (appends that arrive while a batch is being written share the next
 * batch), and a `committed` event emitted only once the batch is on disk.
 */
export class Journal extends EventEmitter {
  readonly db: Db;
  private readonly now: () => Date;
  private readonly sync: boolean;
  private heads = new Map<string, StreamHead>();
  private queue: QueuedBatch[] = [];
  private flushing: Promise<void> | null = null;
  private deriver: Deriver = () => [];
  private failed: Error | null = null;

  constructor(opts: JournalOptions) {
    super();
    this.db = opts.db;
    this.now = opts.now ?? (() => new Date());
    this.sync = opts.sync ?? false;
  }

  async load(): Promise<void> {
    this.heads.clear();
    for await (const [key, value] of this.db.iterator(HEAD_RANGE)) {
      this.heads.set(key.slice(2), value as StreamHead);
    }
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

  /** Appends events atomically (one LevelDB batch); resolves once they are on disk. */
  append(pending: PendingEvent[]): Promise<JournalEvent[]> {
    if (tracing) for (const p of pending) mark(p.stream, `ja:${p.type}`);
    if (this.failed) return Promise.reject(this.failed);
    const ts = this.now().toISOString();
    const touched = new Map<string, StreamHead>();
    const events: JournalEvent[] = pending.map((p) => {
      let head = this.heads.get(p.stream);
      if (!head) {
        head = { epoch: ulid(), seq: 0, created_at: ts };
        this.heads.set(p.stream, head);
      }
      head.seq += 1;
      touched.set(p.stream, head);
      return { stream: p.stream, seq: head.seq, epoch: head.epoch, type: p.type, ts, payload: p.payload };
    });
    const ops: BatchOp[] = events.map((e) => ({ type: 'put', key: eventKey(e.stream, e.seq), value: stored(e) }));
    for (const [stream, head] of touched) ops.push({ type: 'put', key: headKey(stream), value: { ...head } });
    ops.push(...this.deriver(events));
    return this.enqueue(ops, events);
  }

  /**
   * Writes a whole stream copied from another slot, keeping its seq and epoch
   * (so client cursors stay valid). The stream must not exist here yet.
   */
  importStream(stream: string, head: StreamHead, records: StoredEvent[], extra: BatchOp[] = []): Promise<JournalEvent[]> {
    if (this.heads.has(stream)) return Promise.resolve([]);
    this.heads.set(stream, { ...head });
    const events: JournalEvent[] = records.map((r, i) => ({
      stream, seq: i + 1, epoch: head.epoch, type: r.type, ts: r.ts, payload: r.payload, imported: true,
    }));
    const ops: BatchOp[] = events.map((e) => ({ type: 'put', key: eventKey(stream, e.seq), value: stored(e) }));
    ops.push({ type: 'put', key: headKey(stream), value: { ...head } }, ...extra);
    ops.push(...this.deriver(events));
    return this.enqueue(ops, events);
  }

  /**
   * Appends events copied from another slot to an existing stream (global, gui):
   * fresh seqs here, flagged `imported` so they are never broadcast.
   */
  appendImported(stream: string, records: StoredEvent[]): Promise<JournalEvent[]> {
    if (!records.length) return Promise.resolve([]);
    let head = this.heads.get(stream);
    if (!head) {
      head = { epoch: ulid(), seq: 0, created_at: records[0].ts };
      this.heads.set(stream, head);
    }
    const events: JournalEvent[] = records.map((r) => {
      head!.seq += 1;
      return { stream, seq: head!.seq, epoch: head!.epoch, type: r.type, ts: r.ts, payload: r.payload, imported: true };
    });
    const ops: BatchOp[] = events.map((e) => ({ type: 'put', key: eventKey(stream, e.seq), value: stored(e) }));
    ops.push({ type: 'put', key: headKey(stream), value: { ...head } });
    ops.push(...this.deriver(events));
    return this.enqueue(ops, events);
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
    if (fromSeq > hi) return [];
    const out: JournalEvent[] = [];
    const lo = Math.max(1, fromSeq);
    const size = hi - lo + 1;
    if (size <= GET_MANY_MAX && (limit < 0 || size <= limit)) {
      // A short range (a fresh session's runtime load) in one native call instead of an iterator's
      // open/next/close round trips. Keys not on disk yet (appended, not committed) come back undefined.
      const keys = Array.from({ length: size }, (_, i) => eventKey(stream, lo + i));
      const values = await this.db.getMany(keys);
      values.forEach((v, i) => v !== undefined && out.push(toEvent(stream, lo + i, head.epoch, v as StoredEvent)));
      return out;
    }
    const range = { gte: eventKey(stream, lo), lte: eventKey(stream, hi), limit };
    for await (const [key, value] of this.db.iterator(range)) {
      out.push(toEvent(stream, parseEventKey(key).seq, head.epoch, value as StoredEvent));
    }
    return out;
  }

  /** Every stored event of every stream, in key order (stream, then seq). For rebuilds. */
  async *scanAll(): AsyncGenerator<JournalEvent> {
    for await (const [key, value] of this.db.iterator(EVENT_RANGE)) {
      const { stream, seq } = parseEventKey(key);
      const head = this.heads.get(stream);
      yield toEvent(stream, seq, head?.epoch ?? '', value as StoredEvent);
    }
  }

  async readStream(stream: string): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    for await (const value of this.db.values(eventRange(stream))) out.push(value as StoredEvent);
    return out;
  }

  async getMeta<T>(key: string): Promise<T | undefined> {
    return (await this.db.get(metaKey(key))) as T | undefined;
  }

  putMeta(key: string, value: unknown): Promise<void> {
    return this.db.put(metaKey(key), value);
  }

  /** Direct batch for projection maintenance (rebuilds); not part of the event log. */
  writeRaw(ops: BatchOp[]): Promise<void> {
    return this.enqueue(ops, []).then(() => undefined);
  }

  /** Waits until every queued batch is on disk. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.db.close();
  }

  private enqueue(ops: BatchOp[], events: JournalEvent[]): Promise<JournalEvent[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ops, events, resolve, reject });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      const ops = batch.length === 1 ? batch[0].ops : lastWritePerKey(batch.flatMap((b) => b.ops));
      if (tracing) for (const b of batch) for (const e of b.events) mark(e.stream, `jw:${e.type}`);
      try {
        await this.write(ops);
        if (tracing) for (const b of batch) for (const e of b.events) mark(e.stream, `jd:${e.type}`);
      } catch (err) {
        this.failed = err as Error;
        for (const b of batch) b.reject(err as Error);
        for (const b of this.queue) b.reject(err as Error);
        this.queue = [];
        this.emit('failed', err);
        break;
      }
      const events = batch.length === 1 ? batch[0].events : batch.flatMap((b) => b.events);
      if (events.length) this.emit('committed', events);
      for (const b of batch) b.resolve(b.events);
    }
    this.flushing = null;
  }

  /**
   * One atomic LevelDB batch, in the chained form: each value is encoded and copied into the native
   * batch as it is added. With the array form (`db.batch(ops)`) most of what a write allocated was
   * promoted to the old generation (5.2 KB per session create against 1.7 KB in this form), and
   * 10,000 creates left about 35 MB more garbage there (bench/created-sessions-memory.ts,
   * docs/benchmarks.md).
   */
  private async write(ops: BatchOp[]): Promise<void> {
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
      }
    } catch (err) {
      await batch.close();
      throw err;
    }
    await batch.write({ sync: this.sync });
  }
}

/** Merged batches rewrite the same heads and records; only the last write of a key matters. */
function lastWritePerKey(ops: BatchOp[]): BatchOp[] {
  const byKey = new Map<string, BatchOp>();
  for (const op of ops) byKey.set(op.key, op);
  return byKey.size === ops.length ? ops : [...byKey.values()];
}

function stored(e: JournalEvent): StoredEvent {
  return e.imported ? { type: e.type, ts: e.ts, payload: e.payload, imported: true } : { type: e.type, ts: e.ts, payload: e.payload };
}

function toEvent(stream: string, seq: number, epoch: string, v: StoredEvent): JournalEvent {
  const e: JournalEvent = { stream, seq, epoch, type: v.type, ts: v.ts, payload: v.payload };
  if (v.imported) e.imported = true;
  return e;
}

export { padSeq };
