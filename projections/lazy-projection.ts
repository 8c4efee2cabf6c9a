import type { Journal } from '../journal/journal.ts';
import type { JournalEvent } from '../journal/types.ts';
import type { Projection, RecordWrite, StreamReducer } from './projection.ts';

/** Folds kept by default; the least recently read goes first. */
const MAX_ENTRIES = 8;
/** Events read per range read while folding. */
const PAGE = 1000;

interface Entry<S> { state: S; seq: number; epoch: string }

/** Folds the events of `stream` after `seq` (up to `toSeq`) into `state`; returns the seq of the last event folded. */
export async function foldFrom<S>(journal: Journal, reducer: StreamReducer<S>, stream: string, state: S, seq: number, toSeq?: number): Promise<number> {
  for (;;) {
    const batch = await journal.readRange(stream, seq + 1, toSeq, PAGE);
    for (const e of batch) reducer.apply(state, e);
    if (batch.length) seq = batch[batch.length - 1]!.seq;
    if (batch.length < PAGE) return seq;
  }
}

/** A fresh fold of the whole stream, read in pages of PAGE events; `seq` = the last event folded. */
export async function foldStream<S>(journal: Journal, reducer: StreamReducer<S>, stream: string): Promise<{ state: S; seq: number }> {
  const state = reducer.init();
  return { state, seq: await foldFrom(journal, reducer, stream, state, 0) };
}

/**
 * A projection too large to hold for every stream (10,000 sessions' transcripts): the streams read most
 * recently are folded and kept, the others cost nothing. A stream is folded from the journal when it is
 * first read; while it is kept, the runner applies its appends as they are accepted (`apply`, like every
 * projection), and a read folds whatever `apply` could not take (events appended while it was being
 * folded) from the journal. A 4,500-event session took 35-45 ms to fold, holding the event loop, when every
 * read folded the whole stream.
 *
 * Reads of one stream run one at a time, and each caller's view is built synchronously on the
 * up-to-date state and cloned, so nothing a caller holds changes under it when later events are applied.
 */
export class LazyProjection<S> implements Projection {
  readonly lazy = true;
  readonly name: string;
  readonly version: number;
  private readonly entries = new Map<string, Entry<S>>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Bumped by reset(): a fold that was running then is not kept. */
  private generation = 0;

  constructor(private readonly journal: Journal, private readonly reducer: StreamReducer<S>, private readonly maxEntries = MAX_ENTRIES) {
    this.name = reducer.name;
    this.version = reducer.version;
  }

  /** `view` gets the state folded up to `seq` (the last event folded) and returns plain data. */
  read<T>(stream: string, view: (state: S, seq: number) => T): Promise<T> {
    const run = (this.queues.get(stream) ?? Promise.resolve()).then(async () => {
      const e = await this.upToDate(stream);
      return structuredClone(view(e.state, e.seq));
    });
    const tail = run.catch(() => undefined);
    this.queues.set(stream, tail);
    void tail.then(() => this.queues.get(stream) === tail && this.queues.delete(stream));
    return run;
  }

  /** The kept fold of a stream as it stands (no journal read), or undefined when the stream is not kept. */
  peek(stream: string): { state: S; seq: number } | undefined {
    const e = this.entries.get(stream);
    return e && { state: e.state, seq: e.seq };
  }

  /** Applies the next event of a kept stream; any other event is left to the stream's next read. */
  apply(event: JournalEvent): RecordWrite[] {
    const e = this.entries.get(event.stream);
    if (!e || event.seq !== e.seq + 1 || event.epoch !== e.epoch) return [];
    try {
      this.reducer.apply(e.state, event);
      e.seq = event.seq;
    } catch {
      // A throwing projection refuses the append (journal.ts), and the fold used to fail only its reads:
      // the half-applied state is dropped, and the next read folds the stream again and fails as before.
      this.entries.delete(event.stream);
    }
    return [];
  }

  load(): void {}

  reset(): void {
    this.entries.clear();
    this.generation += 1;
  }

  private async upToDate(stream: string): Promise<Entry<S>> {
    const head = this.journal.head(stream);
    let e = this.entries.get(stream);
    // A stream that is gone, re-created (new epoch) or shorter than what was folded starts over.
    if (e && (!head || head.epoch !== e.epoch || head.seq < e.seq)) e = undefined;
    e ??= { state: this.reducer.init(), seq: 0, epoch: head?.epoch ?? '' };
    // Out of the map while folding: `apply` does not race the fold, and a fold that fails half-way is not kept.
    this.entries.delete(stream);
    const generation = this.generation;
    e.seq = await foldFrom(this.journal, this.reducer, stream, e.state, e.seq);
    if (generation === this.generation) this.entries.set(stream, e);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return e;
  }
}
