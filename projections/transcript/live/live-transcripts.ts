import type { JournalEvent } from '../../../journal/types.ts';
import { foldStream } from '../../lazy-projection.ts';
import { Codes } from '../../../protocol/codes.ts';
import { notFound } from '../../../protocol/errors.ts';
import { transcriptRole } from '../../../protocol/events/registry.ts';
import { known, type VolatileType } from '../../contract.ts';
import { applyVolatile } from '../records-live.ts';
import { recAgent, type EmittedOp, type RecOp } from '../records-state.ts';
import { anyTrimmed, touchesTrimmed, trimTurns } from '../records-trim.ts';
import { applyLive, liveTranscriptReducer } from '../reducer.ts';
import { agentIdOf, type TranscriptState } from '../state.ts';
import { liveSettings, release, TRIM_SLACK, type Entry, type Input, type LiveListener, type LiveSettings, type LiveTranscriptOptions } from './entry.ts';
import { batchesSince, emptyLog, keep, opsFrame, type AgentLog, type KeptBatch, type OpBatch, type Rank } from './op-log.ts';
import { Restores } from './restores.ts';

export type { Entry, LiveListener, LiveTranscriptOptions } from './entry.ts';
export type { KeptBatch, OpBatch, Rank } from './op-log.ts';

const ROLE_RANK: Record<string, Rank> = { turn: 1, block: 2, delta: 3 };

/**
 * The live transcripts (docs/transcript.md "Ops"): per session a fold of the journal kept up to date with each
 * committed event and each streamed delta, whose record handlers return the ops of spec/clients.md C2; per
 * (session, agent) one batch counter and a bounded op journal (op-log.ts) for `transcript_since` and
 * GET /transcript/ops. GET /transcript reads this fold, so its `seq` is the counter the ops continue. The folds
 * keep the newest turns (restores.ts puts older ones back). Pacing and delivery are the listener's
 * (src/ws/transcript/pacing.ts): it appends each batch (`append`) as it leaves.
 */
export class LiveTranscripts {
  private readonly entries = new Map<string, Entry>();
  /** Inputs a restore was started for (input(): applied once after it, without the check). */
  private readonly restoredFor = new WeakSet<object>();
  private readonly restores: Restores;
  /** The pacing (one: each batch it appends takes the agent's next seq, so a second listener would double them). */
  private listener?: LiveListener;
  private lastBase = 0;
  readonly settings: LiveSettings;
  /**
   * Test seam: awaited in each restore after its journal fold, before the turns go back (a throw counts as a
   * failure while putting them back). Unset in production.
   */
  restoreHook?: (sessionId: string) => void | Promise<void>;
  private readonly deps: Pick<LiveTranscriptOptions, 'journal' | 'clock' | 'log'>;

  constructor(options: LiveTranscriptOptions) {
    const { journal, clock, log } = options;
    this.deps = { journal, clock, log };
    this.settings = liveSettings(options);
    this.restores = new Restores({
      journal, log, settings: this.settings, current: (e) => this.entries.get(e.sessionId) === e, drain: (e) => this.drain(e), drop: (e) => this.drop(e),
      hook: (sid) => this.restoreHook?.(sid),
    });
  }

  /**
   * Sets the pacing and delivery of the batches; returns its removal. One listener only: it appends each batch to
   * the op journal (`append`), and two would give one batch two seqs (spec/clients.md C: +1 per batch per agent).
   * More receivers connect to the one pacing (src/ws/transcript/pacing.ts `connect`).
   */
  listen(listener: LiveListener): () => void {
    if (this.listener) throw new Error('the live transcripts take one listener: connect more receivers to its pacing');
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = undefined;
    };
  }

  /** The session's live fold, created (folded from the journal) when missing. */
  ensure(sessionId: string): Promise<Entry> {
    const had = this.entries.get(sessionId);
    if (had) {
      this.entries.delete(sessionId);
      this.entries.set(sessionId, had);
      return had.ready;
    }
    const base = (this.lastBase = Math.max(this.lastBase + 1, this.deps.clock.now().getTime()));
    const e: Entry = { sessionId, state: null, seq: 0, queue: [], pins: 0, logs: new Map(), base, ready: undefined as never };
    e.ready = foldStream(this.deps.journal, liveTranscriptReducer, sessionId).then(({ state, seq }) => {
      e.state = state;
      e.seq = seq;
      for (const a of state.rec.agents.values()) trimTurns(a, this.settings.liveTurns, 0);
      this.drain(e);
      return e;
    }, (err: unknown) => {
      if (this.entries.get(sessionId) === e) this.entries.delete(sessionId);
      throw err;
    });
    this.entries.set(sessionId, e);
    this.evict();
    return e.ready;
  }

  has(sessionId: string): boolean {
    return this.entries.has(sessionId);
  }

  /** Committed events (a journal subscriber, before the ws fan-out: src/app/subscribers.ts): each makes at most one batch per agent. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    for (const ev of events) {
      if (ev.imported) continue;
      if (known(ev).type === 'event.session.deleted') {
        this.forget((ev.payload as { session_id: string }).session_id);
        continue;
      }
      const e = this.entries.get(ev.stream);
      if (!e) {
        // A turn starting is folded too, followed or not: its streamed words are never journaled, so a page opened
        // part-way would otherwise get the reply without the words written before it came (until the step ends).
        if (known(ev).type === 'turn.started' || this.wanted(ev.stream)) {
          void this.ensure(ev.stream).catch((err) => this.deps.log.error({ err, session_id: ev.stream }, 'live transcript fold failed'));
        }
        continue;
      }
      if (!e.state || e.busy) this.enqueue(e, ev);
      else this.input(e, ev);
    }
  };

  /** A streamed input of a tracked session (the volatile bus: deltas, tool progress, task output). */
  readonly onVolatile = (sessionId: string, type: VolatileType, payload: unknown): void => {
    if (transcriptRole(type, true) !== 'delta') return;
    const e = this.entries.get(sessionId);
    if (!e) return;
    const x = { type, payload: payload as Record<string, unknown> };
    if (!e.state || e.busy) this.enqueue(e, x);
    else this.input(e, x);
  };

  /** Drops a session's fold, its op journal and its held deltas (the session was deleted). */
  forget(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (!e) return;
    e.gone = true;
    this.remove(e);
  }

  /**
   * Reads a tracked session's fold after its held deltas left: `view` gets the state and each agent's watermark,
   * synchronously, so what it builds is exactly what the batches after the watermark continue.
   */
  async read<T>(
    sessionId: string, view: (state: TranscriptState, watermark: (agentId: string) => number, e: Entry) => T, needsOlder?: (state: TranscriptState) => boolean,
  ): Promise<T> {
    // Turns out of the fold that the view needs come back first (a restore). The entry stays pinned until the view
    // has run: the inputs a restore queued are applied before this resumes, and a turn end among them must not trim
    // the turns just put back (then the view would run on trimmed state).
    for (let tries = 0; ; tries++) {
      const e = await this.ensure(sessionId);
      e.pins += 1;
      try {
        // Pinned, a restore leaves nothing trimmed that the journal's fold holds: a second one is for an agent the
        // journal's fold lacks (then the view runs on what is held).
        for (let n = 0; this.entries.get(sessionId) === e && (e.busy || (n < 2 && needsOlder && anyTrimmed(e.state!.rec) && needsOlder(e.state!))); n++) {
          await (e.busy ?? this.restores.restore(e));
          if (this.entries.get(sessionId) !== e) break;
        }
        if (e.gone) throw notFound(Codes.SESSION_NOT_FOUND, 'session', sessionId);
        // The restore failed (the entry was dropped): fold the journal again, a bounded number of times.
        if (this.entries.get(sessionId) !== e) {
          if (tries < 2) continue;
          throw new Error(`live transcript of ${sessionId}: restore failed`);
        }
        this.listener?.flush(sessionId);
        return structuredClone(view(e.state!, (agentId) => e.logs.get(agentId)?.seq ?? e.base, e));
      } finally {
        e.pins -= 1;
        if (this.restores.canRetrim(e)) this.restores.retrimLater(e);
      }
    }
  }

  /**
   * A batch leaves (the listener, in order per agent): the agent's counter moves on, the op journal keeps its frame.
   * Undefined when the session's fold is gone.
   */
  append(sessionId: string, agentId: string, rank: Rank, ops: RecOp[], volatile: boolean): OpBatch | undefined {
    const e = this.entries.get(sessionId);
    if (!e) return undefined;
    const log = this.log(e, agentId);
    const seq = ++log.seq;
    const text = opsFrame({ sessionId, agentId, seq, volatile, ops, ts: this.deps.clock.now().toISOString() });
    keep(log, { sessionId, agentId, seq, rank, volatile, text });
    return { sessionId, agentId, seq, rank, ops, volatile, text };
  }

  /** The batches after `since` when the op journal still reaches it (`complete`), oldest first. */
  since(e: Entry, agentId: string, since: number): { batches: KeptBatch[]; latest: number; complete: boolean } {
    // Read without creating: a query for any agent id must not grow the map.
    return batchesSince(e.logs.get(agentId) ?? emptyLog(e.base), since);
  }

  /** Turns a tracked session's fold holds for an agent, and how many it left out (records-trim.ts); tests and benches. */
  held(sessionId: string, agentId: string): { turns: number; trimmed: number } | undefined {
    const a = this.entries.get(sessionId)?.state?.rec.agents.get(agentId);
    return a && { turns: a.items.filter((i) => i.kind === 'turn').length, trimmed: a.trimmed?.turns ?? 0 };
  }

  /** Restores since start (count, failed, total and longest duration in ms, waiting for a slot) and folds held; for GET /api/v1/debug/memory and benches. */
  stats(): { sessions: number; restores: number; restore_failures: number; restore_ms: number; restore_max_ms: number; restores_waiting: number; queue_overflows: number } {
    return { sessions: this.entries.size, ...this.restores.stats() };
  }

  close(): void {
    for (const e of this.entries.values()) clearTimeout(e.retrimTimer);
    this.entries.clear();
  }

  private wanted(sessionId: string): boolean {
    return this.listener?.wanted(sessionId) ?? false;
  }

  private log(e: Entry, agentId: string): AgentLog {
    let l = e.logs.get(agentId);
    if (!l) e.logs.set(agentId, (l = emptyLog(e.base)));
    return l;
  }

  /** Applies the queued inputs in order, until a restore starts (the rest then wait for it). */
  private drain(e: Entry): void {
    while (e.queue.length && !e.busy && this.entries.get(e.sessionId) === e) this.input(e, e.queue.shift()!);
  }

  /** Queues an input while the entry folds or restores; past maxQueue the fold is dropped as after a failed apply. */
  private enqueue(e: Entry, x: Input): void {
    if (e.queue.length < this.settings.maxQueue) {
      e.queue.push(x);
      return;
    }
    this.restores.overflowed();
    this.deps.log.warn({ session_id: e.sessionId, queued: e.queue.length }, 'live transcript input queue full: fold dropped');
    this.drop(e);
  }

  /** Drops a fold no longer trustworthy (a failed apply or restore, an overflowing queue): the next read folds the journal again and its counter moves on (clients see a gap and reload). */
  private drop(e: Entry): void {
    if (this.entries.get(e.sessionId) === e) this.remove(e);
  }

  /** The entry leaves the map: its held deltas go unsent. */
  private remove(e: Entry): void {
    this.listener?.dropped(e.sessionId);
    this.entries.delete(e.sessionId);
    release(e);
  }

  private input(e: Entry, x: Input): void {
    const state = e.state!;
    // An input a restore was for is applied once, without the check (an agent the journal's fold lacks stays trimmed).
    let needsRestore: boolean;
    try {
      needsRestore = 'seq' in x && x.seq > e.seq && !this.restoredFor.has(x) && anyTrimmed(state.rec) && touchesTrimmed(state.rec, x);
    } catch (err) {
      this.deps.log.error({ err, session_id: e.sessionId, type: x.type }, 'live transcript apply failed');
      this.drop(e);
      return;
    }
    if (needsRestore) {
      this.restoredFor.add(x);
      void this.restores.restore(e, x);
      return;
    }
    let ops: EmittedOp[];
    try {
      if ('seq' in x) {
        if (x.seq <= e.seq) return;
        ops = applyLive(state, x);
        e.seq = x.seq;
        const ended = known(x).type === 'turn.ended';
        if (ended && e.pins) e.retrim = true;
        else if (ended) trimTurns(recAgent(state.rec, agentIdOf(x.payload)), this.settings.liveTurns, Math.min(TRIM_SLACK, Math.ceil(this.settings.liveTurns / 2)));
      } else {
        ops = applyVolatile(state.rec, x.type, x.payload);
      }
    } catch (err) {
      // The fold is no longer trustworthy: drop it; the next read folds the journal again (its counter moves on).
      this.deps.log.error({ err, session_id: e.sessionId, type: x.type }, 'live transcript apply failed');
      this.drop(e);
      return;
    }
    if (ops.length) this.emit(e, x, ops);
  }

  /** An input's ops, by agent, to the listener: a committed event's as one batch per agent, a streamed one's to be merged. */
  private emit(e: Entry, x: Input, ops: EmittedOp[]): void {
    const byAgent = new Map<string, RecOp[]>();
    for (const o of ops) {
      const list = byAgent.get(o.agentId);
      if (list) list.push(o.op);
      else byAgent.set(o.agentId, [o.op]);
    }
    const l = this.listener;
    if (!l) return;
    try {
      if ('seq' in x) l.committed(e.sessionId, known(x).type, ROLE_RANK[transcriptRole(x.type, false)] ?? 2, byAgent);
      else l.streamed(e.sessionId, x.type, x.payload, byAgent);
    } catch (err) {
      this.deps.log.error({ err, session_id: e.sessionId }, 'transcript batch fan-out failed');
    }
  }

  private evict(): void {
    while (this.entries.size > this.settings.maxEntries) this.remove(this.entries.values().next().value!);
  }
}
