import { encode } from './encode.ts';
import { GLOBAL_STREAM, GUI_STREAM } from './keys.ts';
import { StreamConflictError, type EncodedOp, type HeadWrite, type WriteUnit } from './store.ts';
import type { JournalEvent, PendingEvent, StoredEvent, StreamHead } from './types.ts';

/**
 * Streams every node writes (docs/scale-out.md): an append that loses the race on one of them to another node is
 * caught up and retried with the new head. Every other stream (a session's) has a single writer, the node holding
 * its lease: a conflict there refuses that append alone.
 */
export const SHARED_STREAMS: ReadonlySet<string> = new Set([GLOBAL_STREAM, GUI_STREAM]);

/**
 * What an accepted append is, before seqs are given: enough to give them again after a conflict on the shared
 * PostgreSQL journal (journal.ts `recover`). `append`: events numbered from the heads of the moment, records derived
 * by the projections. `import`: a whole stream with its own seqs and head (refused if the stream exists by then).
 */
export type Redo =
  | { kind: 'append'; pending: PendingEvent[]; ts: string; texts: string[]; removed: WriteUnit['removed']; imported?: boolean; tss?: string[]; recheck?: () => PendingEvent[] }
  | { kind: 'import'; stream: string; head: StreamHead; records: StoredEvent[]; texts: string[]; extra: EncodedOp[] };

export interface SequenceContext {
  heads: Map<string, StreamHead>;
  newEpoch: () => string;
  derive: (events: JournalEvent[]) => EncodedOp[];
}

/**
 * Numbers the events of `r` from the heads (a new stream's head made), moves the heads and derives the records.
 * A deriver that throws puts the heads back (no seq gap) and rethrows.
 */
export function sequence(r: Redo, ctx: SequenceContext): { unit: WriteUnit; events: JournalEvent[] } {
  if (r.kind === 'import') return sequenceImport(r, ctx);
  const { heads } = ctx;
  for (const { stream } of r.removed) heads.delete(stream);
  const touched = new Map<string, StreamHead>();
  const before = new Map<string, number | undefined>();
  const events: JournalEvent[] = r.pending.map((p, i) => {
    let head = heads.get(p.stream);
    if (!before.has(p.stream)) before.set(p.stream, head?.seq);
    if (!head) heads.set(p.stream, (head = { epoch: ctx.newEpoch(), seq: 0, created_at: r.ts }));
    head.seq += 1;
    touched.set(p.stream, head);
    const e: JournalEvent = { stream: p.stream, seq: head.seq, epoch: head.epoch, type: p.type, ts: r.tss?.[i] ?? r.ts, payload: p.payload };
    if (r.imported) e.imported = true;
    return e;
  });
  const headWrites = [...touched].map(([stream, head]): HeadWrite => ({ stream, head: { ...head }, expected: before.get(stream) }));
  let records: EncodedOp[];
  try {
    records = ctx.derive(events);
  } catch (err) {
    // Projection records hold parts of events that just encoded, so this is a projection bug, not bad
    // input: the append is refused and the heads are put back (no seq gap); the store is untouched.
    restoreHeads(heads, before);
    throw err;
  }
  return { unit: { events: encodedEvents(events, r.texts), heads: headWrites, records, removed: r.removed }, events };
}

function sequenceImport(r: Extract<Redo, { kind: 'import' }>, ctx: SequenceContext): { unit: WriteUnit; events: JournalEvent[] } {
  const { stream, head } = r;
  if (ctx.heads.has(stream)) throw new Error(`import: stream ${stream} exists`);
  const events: JournalEvent[] = r.records.map((rec, i) => ({
    stream, seq: i + 1, epoch: head.epoch, type: rec.type, ts: rec.ts, payload: rec.payload, imported: true,
  }));
  ctx.heads.set(stream, { ...head });
  let derived: EncodedOp[];
  try {
    derived = ctx.derive(events);
  } catch (err) {
    ctx.heads.delete(stream);
    throw err;
  }
  const unit: WriteUnit = {
    events: encodedEvents(events, r.texts), heads: [{ stream, head: { ...head }, expected: undefined }], records: [...r.extra, ...derived], removed: [],
  };
  return { unit, events };
}

/** The command's events decided again (its `recheck` throws its refusal), encoded with the first try's time. */
function rechecked(r: Extract<Redo, { kind: 'append' }>): Redo {
  const pending = r.recheck!();
  const texts = pending.map((p) => encode(`e!${p.stream}!(next)`, { type: p.type, ts: r.ts, payload: p.payload }));
  return { ...r, pending, texts };
}

/** Puts each stream's head back at `seq` (undefined: the stream is dropped, it was new). */
export function restoreHeads(heads: Map<string, StreamHead>, before: Map<string, number | undefined>): void {
  for (const [stream, seq] of before) {
    if (seq === undefined) heads.delete(stream);
    else if (heads.has(stream)) heads.get(stream)!.seq = seq;
  }
}

/** The head each stream had before the first of `units` moved it (a stream of a removed head is left out). */
export function headsBefore(units: readonly WriteUnit[]): Map<string, number | undefined> {
  const before = new Map<string, number | undefined>();
  for (const u of units) for (const h of u.heads) if (!before.has(h.stream)) before.set(h.stream, h.expected);
  return before;
}

export function encodedEvents(events: JournalEvent[], texts: string[]) {
  return events.map((e, i) => ({ stream: e.stream, seq: e.seq, type: e.type, text: texts[i] }));
}

/** An accepted append as the journal queues it (what `resequence` numbers again). */
export interface Requeued {
  unit: WriteUnit;
  events: JournalEvent[];
  /** How to number and derive it again after a conflict (absent: raw records, written again as they are). */
  redo?: Redo;
  /** Numbered and derived (false: accepted while the journal was recovering from a conflict; done then). */
  sequenced: boolean;
  reject: (err: Error) => void;
}

/**
 * The appends to write again after a conflict, numbered and derived from the caught-up heads and projections.
 * Refused: one on a single-writer stream another node moved (with a StreamConflictError naming it), one whose
 * deriver now throws. Raw record writes (no `redo`) go again as they are.
 */
export function resequence<B extends Requeued>(all: B[], moved: Set<string>, ctx: SequenceContext): B[] {
  const ready: B[] = [];
  for (const b of all) {
    const lost = b.sequenced ? b.unit.heads.find((h) => !SHARED_STREAMS.has(h.stream) && moved.has(h.stream))?.stream : undefined;
    if (lost !== undefined) {
      b.reject(new StreamConflictError(lost, 'another node appended to it first; this node has caught up with it'));
    } else if (!b.redo) {
      ready.push(b);
    } else {
      try {
        if (b.redo.kind === 'append' && b.redo.recheck) b.redo = rechecked(b.redo);
        Object.assign(b, sequence(b.redo, ctx), { sequenced: true });
        ready.push(b);
      } catch (err) {
        b.reject(err as Error);
      }
    }
  }
  return ready;
}
