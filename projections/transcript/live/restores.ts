import type { Journal } from '../../../journal/journal.ts';
import { foldFrom } from '../../lazy-projection.ts';
import { liveTranscriptReducer } from '../reducer.ts';
import { restoreTurns, trimTurns } from '../records-trim.ts';
import type { TranscriptState } from '../state.ts';
import type { Entry, Input, LiveLog, LiveSettings } from './entry.ts';

/** Restores folding the journal at once (each holds a session's whole transcript meanwhile); the others wait. */
const MAX_RESTORES = 2;

/** What the restores need of the live folds that own the entries. */
export interface RestoreHost {
  journal: Journal;
  log: LiveLog;
  settings: LiveSettings;
  /** Whether the entry is still its session's (not dropped, deleted or evicted). */
  current(e: Entry): boolean;
  /** Applies the entry's queued inputs. */
  drain(e: Entry): void;
  /** Drops a fold no longer trustworthy. */
  drop(e: Entry): void;
  /** The test seam awaited after a restore's journal fold (LiveTranscripts.restoreHook). */
  hook(sessionId: string): void | Promise<void>;
}

/** A fold of `stream` up to `seq` (inclusive). */
async function foldUpTo(journal: Journal, stream: string, seq: number): Promise<TranscriptState> {
  const state = liveTranscriptReducer.init();
  if (seq > 0) await foldFrom(journal, liveTranscriptReducer, stream, state, 0, seq);
  return state;
}

/**
 * Trimmed turns coming back (records-trim.ts): a restore folds the journal up to the entry's seq and puts its agents'
 * trimmed turns back; they leave again once no read holds them (the re-trim). At most MAX_RESTORES fold at once.
 */
export class Restores {
  /** Restores done and failed (stats()). */
  private readonly counts = { count: 0, failed: 0, ms: 0, maxMs: 0, overflows: 0 };
  /** Journal folds of restores running, and those waiting for a slot (MAX_RESTORES). */
  private folding = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly host: RestoreHost) {}

  /**
   * Folds the journal up to the entry's seq and puts its agents' trimmed turns back (records-trim.ts); `pending`
   * (an input that needs them) and what arrives meanwhile are applied after, in order.
   */
  restore(e: Entry, pending?: Input): Promise<void> {
    if (pending) e.queue.unshift(pending);
    if (e.busy) return e.busy;
    const h = this.host;
    const t0 = performance.now();
    // An entry dropped, deleted or evicted while waiting for a slot is not folded for.
    const busy = this.slot(() => (h.current(e) ? foldUpTo(h.journal, e.sessionId, e.seq) : Promise.resolve(undefined))).then(async (cold) => {
      if (!cold || !h.current(e)) return;
      await h.hook(e.sessionId);
      for (const [id, a] of e.state!.rec.agents) {
        const c = cold.rec.agents.get(id);
        if (a.trimmed && c) restoreTurns(a, c);
      }
      e.retrim = true;
      const ms = performance.now() - t0;
      this.counts.count += 1;
      this.counts.ms += ms;
      this.counts.maxMs = Math.max(this.counts.maxMs, ms);
    }).catch((err: unknown) => {
      // A failed fold or a failure while putting turns back (the fold may be half restored), as a failed apply:
      // the fold is dropped, the next read folds the journal again.
      this.counts.failed += 1;
      h.log.error({ err, session_id: e.sessionId }, 'live transcript restore failed');
      h.drop(e);
    }).finally(() => {
      if (e.busy === busy) e.busy = undefined;
      try {
        h.drain(e);
        // A restore no read waits on (an event needed the turns): they leave again once it is applied.
        if (this.canRetrim(e)) this.retrim(e);
      } catch (err) {
        h.log.error({ err, session_id: e.sessionId }, 'live transcript: applying after a restore failed');
        h.drop(e);
      }
    });
    e.busy = busy;
    return busy;
  }

  /** An input queue past its bound (stats()). */
  overflowed(): void {
    this.counts.overflows += 1;
  }

  /** Turns were put back, no read holds them, no restore runs, and the entry is still the session's. */
  canRetrim(e: Entry): boolean {
    return !e.pins && !!e.retrim && !e.busy && !!e.state && this.host.current(e);
  }

  /** After the last read: the turns it put back leave once no read came for `retrimMs` (at once with 0). */
  retrimLater(e: Entry): void {
    clearTimeout(e.retrimTimer);
    e.retrimTimer = undefined;
    const ms = this.host.settings.retrimMs;
    if (ms === 0) return this.retrim(e);
    e.retrimTimer = setTimeout(() => {
      e.retrimTimer = undefined;
      if (this.canRetrim(e)) this.retrim(e);
    }, ms);
    e.retrimTimer.unref();
  }

  /** The turns a read put back (or that turn ends left while it ran) leave again: an idle session holds LIVE_TURNS per agent. */
  retrim(e: Entry): void {
    clearTimeout(e.retrimTimer);
    e.retrimTimer = undefined;
    e.retrim = false;
    for (const a of e.state!.rec.agents.values()) trimTurns(a, this.host.settings.liveTurns, 0);
  }

  stats(): { restores: number; restore_failures: number; restore_ms: number; restore_max_ms: number; restores_waiting: number; queue_overflows: number } {
    const r = this.counts;
    return {
      restores: r.count, restore_failures: r.failed, restore_ms: Math.round(r.ms), restore_max_ms: Math.round(r.maxMs), restores_waiting: this.waiting.length,
      queue_overflows: r.overflows,
    };
  }

  /** Runs a restore's journal fold when fewer than MAX_RESTORES run (each holds a whole transcript until it is put back). */
  private async slot<T>(fold: () => Promise<T>): Promise<T> {
    // A slot freed goes to the next waiting restore as it is (`folding` unchanged).
    if (this.folding >= MAX_RESTORES) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.folding += 1;
    try {
      return await fold();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.folding -= 1;
    }
  }
}
