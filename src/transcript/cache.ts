import type { Journal } from '../../journal/journal.ts';
import { foldFrom } from './read.ts';
import { newTranscriptState, type TranscriptState } from './state.ts';

/** Folded transcripts kept; the least recently read goes first. */
const MAX_ENTRIES = 8;

interface Entry { state: TranscriptState; seq: number; epoch: string }

/**
 * The transcripts of the sessions read most recently, each brought up to date by folding only the
 * events after its seq: a 4,500-event session took 35-45 ms to fold on every request, holding the
 * event loop. Reads of one session run one at a time, and each caller's view is built
 * synchronously on the up-to-date state and cloned, so nothing a caller holds changes under it
 * when a later read folds more events.
 */
export class TranscriptCache {
  private readonly entries = new Map<string, Entry>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly journal: Journal) {}

  /** `view` gets the state folded up to `seq` (the last event folded) and returns plain data. */
  read<T>(sessionId: string, view: (state: TranscriptState, seq: number) => T): Promise<T> {
    const run = (this.queues.get(sessionId) ?? Promise.resolve()).then(async () => {
      const e = await this.upToDate(sessionId);
      return structuredClone(view(e.state, e.seq));
    });
    const tail = run.catch(() => undefined);
    this.queues.set(sessionId, tail);
    void tail.then(() => this.queues.get(sessionId) === tail && this.queues.delete(sessionId));
    return run;
  }

  private async upToDate(sessionId: string): Promise<Entry> {
    const head = this.journal.head(sessionId);
    let e = this.entries.get(sessionId);
    // A stream that is gone, re-created (new epoch) or shorter than what was folded starts over.
    if (e && (!head || head.epoch !== e.epoch || head.seq < e.seq)) e = undefined;
    e ??= { state: newTranscriptState(), seq: 0, epoch: head?.epoch ?? '' };
    // Out of the map while folding: a fold that fails half-way is not kept.
    this.entries.delete(sessionId);
    e.seq = await foldFrom(this.journal, sessionId, e.state, e.seq);
    this.entries.set(sessionId, e);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return e;
  }
}

const caches = new WeakMap<Journal, TranscriptCache>();

/** The cache of a journal (one per daemon database). */
export function transcriptCache(journal: Journal): TranscriptCache {
  let c = caches.get(journal);
  if (!c) caches.set(journal, (c = new TranscriptCache(journal)));
  return c;
}
