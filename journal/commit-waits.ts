import type { Journal } from './journal.ts';
import type { JournalEvent } from './types.ts';

/** A batch normally lands within milliseconds; never hold a reader on a stuck disk. */
const WAIT_MS = 5_000;

interface Waiter { seq: number; resolve: () => void }

/**
 * Waits for a stream's events to be on disk. The journal's head moves when an append is accepted, before its
 * batch is written, so a reader of records on disk (a page of the messages projection bounded by the head)
 * waits for that seq first. `onCommitted` wakes the waiters: it must receive every committed batch (the
 * subscriber `commit-waits` of the journal's `committed` event).
 */
export class CommitWaits {
  private readonly waiting = new Map<string, Set<Waiter>>();

  constructor(private readonly journal: Journal, private readonly timeoutMs = WAIT_MS) {}

  readonly onCommitted = (events: JournalEvent[]): void => {
    if (!this.waiting.size) return;
    for (const e of events) {
      const waiters = this.waiting.get(e.stream);
      if (!waiters) continue;
      for (const w of waiters) if (e.seq >= w.seq) this.drop(e.stream, w).resolve();
    }
  };

  /** Resolves once the stream's events up to `seq` are on disk, or after the timeout. */
  async through(stream: string, seq: number): Promise<void> {
    let waiter!: Waiter;
    const landed = new Promise<void>((resolve) => (waiter = { seq, resolve }));
    // Waiting before the head is read: a batch committed meanwhile is not missed.
    const waiters = this.waiting.get(stream) ?? new Set();
    this.waiting.set(stream, waiters.add(waiter));
    const timer = setTimeout(waiter.resolve, this.timeoutMs);
    try {
      const stored = await this.journal.store.storedHead(stream);
      if (!stored || stored.seq < seq) await landed;
    } finally {
      this.drop(stream, waiter);
      clearTimeout(timer);
    }
  }

  private drop(stream: string, w: Waiter): Waiter {
    const waiters = this.waiting.get(stream);
    waiters?.delete(w);
    if (waiters && !waiters.size) this.waiting.delete(stream);
    return w;
  }
}
