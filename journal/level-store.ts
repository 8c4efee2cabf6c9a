import { EVENT_RANGE, HEAD_RANGE, eventKey, eventRange, headKey, parseEventKey } from './keys.ts';
import type { Db } from './slots.ts';
import type { EncodedOp, JournalStore, KeyRange, WriteUnit } from './store.ts';
import type { StoredEvent, StreamHead } from './types.ts';

/** Ranges up to this many events are read with one getMany. */
const GET_MANY_MAX = 64;

/**
 * The embedded journal store: one LevelDB directory (a slot, journal/slots.ts) with the key layout of
 * journal/keys.ts. A flush is one LevelDB batch; `sync` fsyncs it.
 */
export class LevelStore implements JournalStore {
  readonly backend = 'leveldb' as const;

  constructor(readonly db: Db) {}

  async loadHeads(): Promise<Map<string, StreamHead>> {
    const heads = new Map<string, StreamHead>();
    for await (const [key, value] of this.db.iterator(HEAD_RANGE)) heads.set(key.slice(2), value as StreamHead);
    return heads;
  }

  async storedHead(stream: string): Promise<StreamHead | undefined> {
    return (await this.db.get(headKey(stream))) as StreamHead | undefined;
  }

  get(key: string): Promise<unknown> {
    return this.db.get(key);
  }

  entries(range: KeyRange): Promise<Array<[string, unknown]>> {
    return this.db.iterator(range as any).all() as Promise<Array<[string, unknown]>>;
  }

  clear(range: KeyRange): Promise<void> {
    return this.db.clear(range as any);
  }

  async readEvents(stream: string, lo: number, hi: number, limit: number): Promise<Array<{ seq: number; event: StoredEvent }>> {
    const size = hi - lo + 1;
    const out: Array<{ seq: number; event: StoredEvent }> = [];
    if (size <= GET_MANY_MAX && (limit < 0 || size <= limit)) {
      // A short range (a fresh session's runtime load) in one native call instead of an iterator's
      // open/next/close round trips. Keys not on disk yet (appended, not committed) come back undefined.
      const values = await this.db.getMany(Array.from({ length: size }, (_, i) => eventKey(stream, lo + i)));
      values.forEach((v, i) => v !== undefined && out.push({ seq: lo + i, event: v as StoredEvent }));
      return out;
    }
    for await (const [key, value] of this.db.iterator({ gte: eventKey(stream, lo), lte: eventKey(stream, hi), limit })) {
      out.push({ seq: parseEventKey(key).seq, event: value as StoredEvent });
    }
    return out;
  }

  async *scanAll(): AsyncGenerator<{ stream: string; seq: number; event: StoredEvent }> {
    for await (const [key, value] of this.db.iterator(EVENT_RANGE)) {
      const { stream, seq } = parseEventKey(key);
      yield { stream, seq, event: value as StoredEvent };
    }
  }

  async write(units: WriteUnit[], sync: boolean): Promise<void> {
    const ops: EncodedOp[] = [];
    for (const unit of units) {
      // A removed stream's keys are listed here, at flush time: only what is on disk is deleted, and a later unit
      // of the same flush that writes the stream anew puts its keys after these deletes.
      for (const r of unit.removed) {
        const ranges = [eventRange(r.stream), ...r.ranges];
        for (const range of ranges) for await (const k of this.db.keys(range)) ops.push({ type: 'del', key: k as string });
        // What an earlier unit of this flush put in those ranges is not on disk yet: deleted too.
        for (const op of [...ops]) if (op.type === 'put' && ranges.some((g) => inRange(op.key, g))) ops.push({ type: 'del', key: op.key });
        ops.push({ type: 'del', key: headKey(r.stream) });
      }
      for (const e of unit.events) ops.push({ type: 'put', key: eventKey(e.stream, e.seq), value: e.text });
      for (const h of unit.heads) ops.push({ type: 'put', key: headKey(h.stream), value: JSON.stringify(h.head) });
      ops.push(...unit.records);
    }
    await this.batch(units.length === 1 ? ops : lastWritePerKey(ops), sync);
  }

  /**
   * One atomic LevelDB batch, in the chained form: each value is encoded and copied into the native
   * batch as it is added. With the array form (`db.batch(ops)`) most of what a write allocated was
   * promoted to the old generation (5.2 KB per session create against 1.7 KB in this form), and
   * 10,000 creates left about 35 MB more garbage there (bench/created-sessions-memory.ts,
   * docs/benchmarks.md).
   */
  private async batch(ops: EncodedOp[], sync: boolean): Promise<void> {
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        // Values are JSON text already: written as they are, not through the database's json encoding.
        if (op.type === 'put') batch.put(op.key, op.value, { valueEncoding: 'utf8' });
        else batch.del(op.key);
      }
    } catch (err) {
      await batch.close();
      throw err;
    }
    await batch.write({ sync });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

function inRange(key: string, range: KeyRange): boolean {
  return (range.gte === undefined || key >= range.gte) && (range.gt === undefined || key > range.gt)
    && (range.lt === undefined || key < range.lt) && (range.lte === undefined || key <= range.lte);
}

/** Merged batches rewrite the same heads and records; only the last write of a key matters. */
function lastWritePerKey(ops: EncodedOp[]): EncodedOp[] {
  const byKey = new Map<string, EncodedOp>();
  for (const op of ops) byKey.set(op.key, op);
  return byKey.size === ops.length ? ops : [...byKey.values()];
}
