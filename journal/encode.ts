import { JournalEncodeError } from './errors.ts';
import type { EncodedOp } from './store.ts';
import type { JournalEvent, StoredEvent } from './types.ts';

export type BatchOp = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

/** JSON text of a record; JournalEncodeError when it has none (nested too deeply, too large, a cycle, undefined). */
export function encode(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new JournalEncodeError(key, err);
  }
  if (text === undefined) throw new JournalEncodeError(key, new Error('no JSON representation'));
  return text;
}

export function encodeOps(ops: readonly BatchOp[]): EncodedOp[] {
  return ops.map((op) => (op.type === 'del' ? op : { type: 'put', key: op.key, value: encode(op.key, op.value) }));
}

/** A stored event as readers get it (its stream, seq and the stream's epoch added). */
export function toEvent(stream: string, seq: number, epoch: string, v: StoredEvent): JournalEvent {
  const e: JournalEvent = { stream, seq, epoch, type: v.type, ts: v.ts, payload: v.payload };
  if (v.imported) e.imported = true;
  return e;
}
