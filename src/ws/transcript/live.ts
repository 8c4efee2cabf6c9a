import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Journal } from '../../../journal/journal.ts';
import type { JournalEvent } from '../../../journal/types.ts';
import { foldFrom, foldStream } from '../../../projections/lazy-projection.ts';
import { applyVolatile } from '../../../projections/transcript/records-live.ts';
import type { EmittedOp, RecOp } from '../../../projections/transcript/records-state.ts';
import { liveTranscriptReducer } from '../../../projections/transcript/reducer.ts';
import { anyTrimmed, restoreTurns, touchesTrimmed, trimTurns } from '../../../projections/transcript/records-trim.ts';
import { recAgent } from '../../../projections/transcript/records-state.ts';
import { agentIdOf } from '../../../projections/transcript/state.ts';
import type { TranscriptState } from '../../../projections/transcript/state.ts';
import { transcriptRole } from '../../../protocol/events/registry.ts';
import { GlobalEvents } from '../../../protocol/events/types.ts';
import { EngineEvents } from '../../engine/events.ts';
import { Codes } from '../../../protocol/codes.ts';
import { notFound } from '../../../protocol/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Clock } from '../../lib/clock.ts';
import { Coalescer, DEFAULT_COALESCE_MS } from '../coalesce.ts';
import { opsFrame } from './frames.ts';
import { numberFromEnv } from '../../lib/env-number.ts';

/**
 * The live side of the transcript channel (docs/transcript.md "Ops"): per session a fold of the journal kept
 * up to date with each committed event and each streamed delta, whose records handlers emit the ops of
 * spec/clients.md C2; per (session, agent) one batch counter (+1 per batch, delta batches included) and a
 * bounded op journal for `transcript_since` and GET /transcript/ops. GET /transcript of a live session reads
 * this fold, so its `seq` is the counter the ops continue.
 */

/**
 * Batches kept per agent for resumes (as the reference server), and at most this many bytes of them: 256 KiB
 * covers the last ~30 turns of 300 tokens (a resume is for a short disconnect; an older watermark gets a reset).
 * At 1 MiB, 20 streaming sessions held 20 MB of op journals (bench/stream-load.ts).
 */
export const OP_JOURNAL = 2000;
export const OP_JOURNAL_BYTES = 256 * 1024;
/** Sessions folded at once; the least recently used goes first. */
const MAX_ENTRIES = 64;
/**
 * Turns a live fold holds per agent, at least: once it holds LIVE_TURNS + TRIM_SLACK, the oldest ended ones leave
 * it down to LIVE_TURNS (projections/transcript/records-trim.ts) and come back from the journal when a page or an
 * event needs them. Above the newest page (20 turns), so a reset snapshot and the newest page never need them.
 * 20 sessions prompting back to back held ~1.7 KB per turn of records (docs/benchmarks.md "Session 8").
 */
export const LIVE_TURNS = 40;
/**
 * Inputs queued per session while its fold is built or a restore runs, at most (a restore of a long journal under
 * streaming deltas); past it the fold is dropped as after a failed apply (clients see a gap and reload).
 */
export const MAX_QUEUE = 20_000;
/** Restores folding the journal at once (each holds a session's whole transcript meanwhile); the others wait. */
const MAX_RESTORES = 2;
const TRIM_SLACK = 20;

/**
 * How long turns a read put back stay after the last read, in ms: a reader walking back page by page is served from
 * them (one restore, not a journal fold per page); then they leave (an idle session holds LIVE_TURNS per agent).
 */
export const RETRIM_IDLE_MS = 30_000;

/** SVC_CODE_LIVE_RETRIM_MS (an integer >= 0) replaces RETRIM_IDLE_MS (tests: 0 re-trims as the last read ends). */
export function liveRetrimMsFromEnv(env: NodeJS.ProcessEnv): number {
  return numberFromEnv(env, 'SVC_CODE_LIVE_RETRIM_MS', RETRIM_IDLE_MS, { min: 0 });
}

/** SVC_CODE_LIVE_TURNS (an integer >= 1) replaces LIVE_TURNS (tests: trimming after a few turns). */
export function liveTurnsFromEnv(env: NodeJS.ProcessEnv): number {
  return numberFromEnv(env, 'SVC_CODE_LIVE_TURNS', LIVE_TURNS);
}

type Input = JournalEvent | { type: string; payload: Record<string, unknown> };

/** A fold of `stream` up to `seq` (inclusive). */
async function foldUpTo(journal: Journal, stream: string, seq: number): Promise<TranscriptState> {
  const state = liveTranscriptReducer.init();
  if (seq > 0) await foldFrom(journal, liveTranscriptReducer, stream, state, 0, seq);
  return state;
}
/** Later deltas of a step are merged into one batch per window (about one animation frame; src/ws/coalesce.ts). */
export const COALESCE_MS = DEFAULT_COALESCE_MS;
/**
 * A streamed tool call's input: the contract has no `append` for tool frames (spec/clients.md C: text and
 * thinking frames only, any other target is a gap), so each update re-sends the whole `inputText`. Updates of
 * one tool frame are spaced by its length / TOOL_INPUT_CHARS_PER_MS (at least one window, at most
 * TOOL_INPUT_MAX_MS): about 32 KB/s of re-sent input per subscriber however large the input grows, instead of
 * the whole input every window.
 */
export const TOOL_INPUT_CHARS_PER_MS = 32;
export const TOOL_INPUT_MAX_MS = 1000;

/** The lowest grade that carries a batch: 1 turn, 2 block, 3 delta. */
export type Rank = 1 | 2 | 3;

export interface OpBatch {
  sessionId: string;
  agentId: string;
  seq: number;
  rank: Rank;
  ops: RecOp[];
  /** From streamed deltas (never journaled). */
  volatile: boolean;
  /** The `transcript.ops` frame, serialised once (what the op journal keeps, instead of the op objects). */
  text: string;
}

/** A batch as the op journal keeps it. */
export type KeptBatch = Omit<OpBatch, 'ops'>;

/**
 * The op journal keeps its newest batches as they are (a resume after a short disconnect reads them) and packs
 * older ones, PACK_BYTES of frame text at a time, into one deflated block (JSON of the batches: the frames of a
 * turn repeat their envelopes, ids and text, ~5x smaller). A resume that reaches into a block inflates it. The
 * bounds (OP_JOURNAL batches, OP_JOURNAL_BYTES of frame text) count the batches as sent, packed or not, so what
 * a resume can reach is what it was; 20 streaming sessions held 5.6 MB of op journals as strings, ~1.5 MB so
 * (bench/stream-load.ts, docs/benchmarks.md "Session 7 — stream-load memory").
 */
export const PACK_BYTES = 16 * 1024;
/** Frame text kept unpacked per agent, at most (then the oldest PACK_BYTES of it are packed). */
export const RAW_BYTES = 32 * 1024;

/** Batches packed into one block: seqs `first`..`last`, `bytes` of frame text, deflated. */
interface PackedBlock { first: number; last: number; count: number; bytes: number; data: Buffer }

interface AgentLog {
  seq: number;
  /** Older batches, packed, oldest first. */
  packed: PackedBlock[];
  /** The newest batches, as sent, oldest first. */
  batches: KeptBatch[];
  /** Frame text of every batch kept, packed or not. */
  bytes: number;
  /** Frame text of `batches`. */
  rawBytes: number;
  /** Batches kept, packed or not. */
  count: number;
}

const emptyLog = (seq: number): AgentLog => ({ seq, packed: [], batches: [], bytes: 0, rawBytes: 0, count: 0 });

function pack(batches: KeptBatch[]): PackedBlock {
  let bytes = 0;
  for (const b of batches) bytes += b.text.length;
  const out = deflateRawSync(JSON.stringify(batches));
  // A block of its own (zlib's result can be a view into a larger chunk it allocated).
  const data = Buffer.allocUnsafeSlow(out.length);
  out.copy(data);
  return { first: batches[0]!.seq, last: batches.at(-1)!.seq, count: batches.length, bytes, data };
}

function unpack(block: PackedBlock): KeptBatch[] {
  return JSON.parse(inflateRawSync(block.data).toString('utf8')) as KeptBatch[];
}

interface Entry {
  sessionId: string;
  state: TranscriptState | null;
  /** Journal seq folded. */
  seq: number;
  /** Inputs that arrived while the entry was folding or restoring trimmed turns. */
  queue: Input[];
  /** Set while trimmed turns are folded back from the journal (restore): inputs wait in `queue`. */
  busy?: Promise<void>;
  ready: Promise<Entry>;
  logs: Map<string, AgentLog>;
  /**
   * Reads in progress (read()): while pinned, a turn end does not trim (the view must see the turns a restore put
   * back, whatever the restore's queued inputs were); `retrim` notes that a trim waits for the last read to end.
   */
  pins: number;
  retrim?: boolean;
  /** The re-trim after the last read (RETRIM_IDLE_MS); a later read moves it. */
  retrimTimer?: NodeJS.Timeout;
  /** The session was deleted (forget()): a read waiting on this entry answers session-not-found. */
  gone?: boolean;
  /** The counter each agent's log starts from (docs/transcript.md: a fresh fold never reuses an earlier fold's seqs). */
  base: number;
  /** When each streamed tool frame (`<agentId>|<frameId>`) was last sent, for the tool-input spacing. */
  toolSent: Map<string, number>;
}

const ROLE_RANK: Record<string, Rank> = { turn: 1, block: 2, delta: 3 };

export class LiveTranscripts {
  private readonly entries = new Map<string, Entry>();
  /** Inputs a restore was started for (input(): applied once after it, without the check). */
  private readonly restoredFor = new WeakSet<object>();
  /** Restores done and failed (stats()). */
  private readonly restores = { count: 0, failed: 0, ms: 0, maxMs: 0, overflows: 0 };
  /** Journal folds of restores running, and those waiting for a slot (MAX_RESTORES). */
  private folding = 0;
  private readonly waiting: Array<() => void> = [];
  private lastBase = 0;
  /** Delta ops not sent yet: group = session, lane = agent (src/ws/coalesce.ts). */
  private readonly coalescer: Coalescer<RecOp[]>;
  /** The fan-out's sink for each batch, in order per agent. */
  onBatch: (b: OpBatch) => void = () => {};
  /**
   * Test seam: awaited in each restore after its journal fold, before the turns go back (a throw counts as a
   * failure while putting them back). Unset in production.
   */
  restoreHook?: (sessionId: string) => void | Promise<void>;
  /** How long turns a read put back stay after the last read (RETRIM_IDLE_MS; 0: they leave as it ends). */
  retrimMs = RETRIM_IDLE_MS;
  /** Whether some connection has a transcript channel on the session (an untracked session is then folded). */
  wanted: (sessionId: string) => boolean = () => false;

  constructor(
    private readonly deps: { journal: Journal; clock: Clock; log: Logger },
    private readonly coalesceMs = COALESCE_MS,
    private readonly maxEntries = MAX_ENTRIES,
    private readonly liveTurns = LIVE_TURNS,
    /** Not readonly: tests lower it to overflow the queue of a restore. */
    private maxQueue = MAX_QUEUE,
  ) {
    this.coalescer = new Coalescer<RecOp[]>({
      windowMs: coalesceMs,
      onError: (err) => this.deps.log.error({ err }, 'transcript delta coalescer: a timed release failed'),
      size: opsSize,
      merge: (held, next) => {
        for (const op of next) merge(held, op);
        return held;
      },
      split: (sessionId, agentId, ops, now) => this.splitToolInput(sessionId, agentId, ops, now),
      // A newer input of a tool frame held back waits with it (merge replaces the held upsert).
      holdsWith: (held, next) => next.every((op) => op.op === 'frame.upsert' && op.frame.kind === 'tool'
        && held.some((o) => o.op === 'frame.upsert' && o.frame.frameId === op.frame.frameId && o.stepId === op.stepId)),
      send: (sessionId, agentId, ops) => {
        const e = this.entries.get(sessionId);
        if (e) this.issue(e, agentId, 3, ops, true);
      },
    });
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
    const e: Entry = {
      sessionId, state: null, seq: 0, queue: [], pins: 0, logs: new Map(), base, toolSent: new Map(), ready: undefined as never,
    };
    e.ready = foldStream(this.deps.journal, liveTranscriptReducer, sessionId).then(({ state, seq }) => {
      e.state = state;
      e.seq = seq;
      for (const a of state.rec.agents.values()) trimTurns(a, this.liveTurns, 0);
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

  /** Committed events (the ws fan-out calls this first): each makes at most one batch per agent. */
  onCommitted(events: JournalEvent[]): void {
    for (const ev of events) {
      if (ev.imported) continue;
      if (ev.type === GlobalEvents.sessionDeleted) {
        this.forget((ev.payload as { session_id: string }).session_id);
        continue;
      }
      const e = this.entries.get(ev.stream);
      if (!e) {
        // A turn starting is folded too, followed or not: its streamed words are never journaled, so a page opened
        // part-way would otherwise get the reply without the words written before it came (until the step ends).
        if (ev.type === EngineEvents.turnStarted || this.wanted(ev.stream)) {
          void this.ensure(ev.stream).catch((err) => this.deps.log.error({ err, session_id: ev.stream }, 'live transcript fold failed'));
        }
        continue;
      }
      if (!e.state || e.busy) this.enqueue(e, ev);
      else this.input(e, ev);
    }
  }

  /** Drops a session's fold, its op journal and its held deltas (the session was deleted). */
  forget(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (!e) return;
    e.gone = true;
    this.coalescer.forget(sessionId, true);
    this.entries.delete(sessionId);
    release(e);
  }

  /** A streamed delta of a tracked session. */
  onVolatile(sessionId: string, type: string, payload: unknown): void {
    if (transcriptRole(type, true) !== 'delta') return;
    const e = this.entries.get(sessionId);
    if (!e) return;
    const x = { type, payload: payload as Record<string, unknown> };
    if (!e.state || e.busy) this.enqueue(e, x);
    else this.input(e, x);
  }

  /**
   * Reads a tracked session's fold after sending its pending deltas: `view` gets the state and each agent's
   * watermark, synchronously, so what it builds is exactly what the batches after the watermark continue.
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
          await (e.busy ?? this.restore(e));
          if (this.entries.get(sessionId) !== e) break;
        }
        if (e.gone) throw notFound(Codes.SESSION_NOT_FOUND, 'session', sessionId);
        // The restore failed (the entry was dropped): fold the journal again, a bounded number of times.
        if (this.entries.get(sessionId) !== e) {
          if (tries < 2) continue;
          throw new Error(`live transcript of ${sessionId}: restore failed`);
        }
        this.coalescer.flush(sessionId);
        return structuredClone(view(e.state!, (agentId) => e.logs.get(agentId)?.seq ?? e.base, e));
      } finally {
        e.pins -= 1;
        if (this.canRetrim(e)) this.retrimLater(e);
      }
    }
  }

  /** Turns were put back, no read holds them, no restore runs, and the entry is still the session's. */
  private canRetrim(e: Entry): boolean {
    return !e.pins && !!e.retrim && !e.busy && !!e.state && this.entries.get(e.sessionId) === e;
  }

  /** After the last read: the turns it put back leave once no read came for `retrimMs` (at once with 0). */
  private retrimLater(e: Entry): void {
    clearTimeout(e.retrimTimer);
    e.retrimTimer = undefined;
    if (this.retrimMs === 0) return this.retrim(e);
    e.retrimTimer = setTimeout(() => {
      e.retrimTimer = undefined;
      if (this.canRetrim(e)) this.retrim(e);
    }, this.retrimMs);
    e.retrimTimer.unref();
  }

  /** The turns a read put back (or that turn ends left while it ran) leave again: an idle session holds LIVE_TURNS per agent. */
  private retrim(e: Entry): void {
    clearTimeout(e.retrimTimer);
    e.retrimTimer = undefined;
    e.retrim = false;
    for (const a of e.state!.rec.agents.values()) trimTurns(a, this.liveTurns, 0);
  }

  /** The batches after `since` when the op journal still reaches it (`complete`), oldest first. */
  since(e: Entry, agentId: string, since: number): { batches: KeptBatch[]; latest: number; complete: boolean } {
    // Read without creating: a query for any agent id must not grow the map.
    const log = e.logs.get(agentId) ?? emptyLog(e.base);
    const oldest = log.packed[0]?.first ?? log.batches[0]?.seq ?? log.seq + 1;
    if (since > log.seq || since < oldest - 1) return { batches: [], latest: log.seq, complete: false };
    const out: KeptBatch[] = [];
    for (const block of log.packed) if (block.last > since) for (const b of unpack(block)) if (b.seq > since) out.push(b);
    for (const b of log.batches) if (b.seq > since) out.push(b);
    return { batches: out, latest: log.seq, complete: true };
  }

  /** Turns a tracked session's fold holds for an agent, and how many it left out (records-trim.ts); tests and benches. */
  held(sessionId: string, agentId: string): { turns: number; trimmed: number } | undefined {
    const a = this.entries.get(sessionId)?.state?.rec.agents.get(agentId);
    return a && { turns: a.items.filter((i) => i.kind === 'turn').length, trimmed: a.trimmed?.turns ?? 0 };
  }

  /** Restores since start (count, failed, total and longest duration in ms, waiting for a slot) and folds held; for GET /api/v1/debug/memory and benches. */
  stats(): { sessions: number; restores: number; restore_failures: number; restore_ms: number; restore_max_ms: number; restores_waiting: number; queue_overflows: number } {
    const r = this.restores;
    return { sessions: this.entries.size, restores: r.count, restore_failures: r.failed, restore_ms: Math.round(r.ms), restore_max_ms: Math.round(r.maxMs), restores_waiting: this.waiting.length, queue_overflows: r.overflows };
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

  close(): void {
    this.coalescer.close();
    for (const e of this.entries.values()) clearTimeout(e.retrimTimer);
    this.entries.clear();
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

  /**
   * Folds the journal up to the entry's seq and puts its agents' trimmed turns back (records-trim.ts); `pending`
   * (an input that needs them) and what arrives meanwhile are applied after, in order.
   */
  private restore(e: Entry, pending?: Input): Promise<void> {
    if (pending) e.queue.unshift(pending);
    if (e.busy) return e.busy;
    const t0 = performance.now();
    // An entry dropped, deleted or evicted while waiting for a slot is not folded for.
    const busy = this.slot(() => (this.entries.get(e.sessionId) === e ? foldUpTo(this.deps.journal, e.sessionId, e.seq) : Promise.resolve(undefined))).then(async (cold) => {
      if (!cold || this.entries.get(e.sessionId) !== e) return;
      await this.restoreHook?.(e.sessionId);
      for (const [id, a] of e.state!.rec.agents) {
        const c = cold.rec.agents.get(id);
        if (a.trimmed && c) restoreTurns(a, c);
      }
      e.retrim = true;
      const ms = performance.now() - t0;
      this.restores.count += 1;
      this.restores.ms += ms;
      this.restores.maxMs = Math.max(this.restores.maxMs, ms);
    }).catch((err: unknown) => {
      // A failed fold or a failure while putting turns back (the fold may be half restored), as a failed apply:
      // the fold is dropped, the next read folds the journal again.
      this.restores.failed += 1;
      this.deps.log.error({ err, session_id: e.sessionId }, 'live transcript restore failed');
      this.drop(e);
    }).finally(() => {
      if (e.busy === busy) e.busy = undefined;
      try {
        this.drain(e);
        // A restore no read waits on (an event needed the turns): they leave again once it is applied.
        if (this.canRetrim(e)) this.retrim(e);
      } catch (err) {
        this.deps.log.error({ err, session_id: e.sessionId }, 'live transcript: applying after a restore failed');
        this.drop(e);
      }
    });
    e.busy = busy;
    return busy;
  }

  /** Queues an input while the entry folds or restores; past MAX_QUEUE the fold is dropped as after a failed apply. */
  private enqueue(e: Entry, x: Input): void {
    if (e.queue.length < this.maxQueue) {
      e.queue.push(x);
      return;
    }
    this.restores.overflows += 1;
    this.deps.log.warn({ session_id: e.sessionId, queued: e.queue.length }, 'live transcript input queue full: fold dropped');
    this.drop(e);
  }

  /** Drops a fold no longer trustworthy (a failed apply or restore, an overflowing queue): the next read folds the journal again and its counter moves on (clients see a gap and reload). */
  private drop(e: Entry): void {
    if (this.entries.get(e.sessionId) !== e) return;
    this.coalescer.forget(e.sessionId, true);
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
      void this.restore(e, x);
      return;
    }
    const sink: EmittedOp[] = [];
    state.rec.sink = sink;
    try {
      if ('seq' in x) {
        if (x.seq <= e.seq) return;
        liveTranscriptReducer.apply(state, x);
        e.seq = x.seq;
        if (x.type === 'turn.ended' && e.pins) e.retrim = true;
        else if (x.type === 'turn.ended') trimTurns(recAgent(state.rec, agentIdOf(x.payload)), this.liveTurns, Math.min(TRIM_SLACK, Math.ceil(this.liveTurns / 2)));
      } else {
        applyVolatile(state.rec, x.type, x.payload);
      }
    } catch (err) {
      // The fold is no longer trustworthy: drop it; the next read folds the journal again (its counter moves on).
      this.deps.log.error({ err, session_id: e.sessionId, type: x.type }, 'live transcript apply failed');
      this.drop(e);
      return;
    } finally {
      state.rec.sink = null;
    }
    if (!sink.length) return;
    const byAgent = new Map<string, RecOp[]>();
    for (const o of sink) {
      const ops = byAgent.get(o.agentId);
      if (ops) ops.push(o.op);
      else byAgent.set(o.agentId, [o.op]);
    }
    if ('seq' in x) {
      const rank = ROLE_RANK[transcriptRole(x.type, false)] ?? 2;
      for (const [agentId, ops] of byAgent) {
        this.coalescer.flush(e.sessionId, agentId);
        this.issue(e, agentId, rank, ops, false);
      }
      if (x.type === 'turn.ended') e.toolSent.clear();
      return;
    }
    const { stream, step } = volatileStream(x.type, x.payload);
    // The first delta batch of a step (of a call's progress, of a task's output) leaves at once; later ones wait for the window and leave merged.
    for (const [agentId, ops] of byAgent) this.coalescer.push(e.sessionId, agentId, `${agentId}${stream}`, step, ops);
  }

  /** At a timed release: a streamed tool frame already sent waits until its spacing has passed (TOOL_INPUT_CHARS_PER_MS). */
  private splitToolInput(sessionId: string, agentId: string, ops: RecOp[], now: number): { now?: RecOp[]; later?: RecOp[]; at?: number } {
    const e = this.entries.get(sessionId);
    if (!e) return { now: ops };
    let later: RecOp[] | undefined;
    // When the first held-back update may leave: the coalescer's timer is armed once for it.
    let at = Infinity;
    const out: RecOp[] = [];
    for (const op of ops) {
      if (op.op === 'frame.upsert' && op.frame.kind === 'tool') {
        const sent = e.toolSent.get(`${agentId}|${op.frame.frameId}`);
        const len = (op.frame.inputText?.length ?? 0) + (op.frame.progress?.text?.length ?? 0);
        const gap = Math.min(TOOL_INPUT_MAX_MS, Math.max(this.coalesceMs, len / TOOL_INPUT_CHARS_PER_MS));
        if (sent !== undefined && now - sent < gap) {
          (later ??= []).push(op);
          at = Math.min(at, sent + gap);
          continue;
        }
      }
      out.push(op);
    }
    return { ...(out.length ? { now: out } : {}), ...(later ? { later, at } : {}) };
  }

  private issue(e: Entry, agentId: string, rank: Rank, ops: RecOp[], volatile: boolean): void {
    const log = this.log(e, agentId);
    if (volatile) {
      const at = performance.now();
      for (const op of ops) if (op.op === 'frame.upsert' && op.frame.kind === 'tool') e.toolSent.set(`${agentId}|${op.frame.frameId}`, at);
    }
    const seq = ++log.seq;
    const text = opsFrame({ sessionId: e.sessionId, agentId, seq, volatile, ops, ts: this.deps.clock.now().toISOString() });
    const b: OpBatch = { sessionId: e.sessionId, agentId, seq, rank, ops, volatile, text };
    try {
      keep(log, { sessionId: e.sessionId, agentId, seq, rank, volatile, text });
      this.onBatch(b);
    } catch (err) {
      this.deps.log.error({ err, session_id: e.sessionId }, 'transcript batch fan-out failed');
    }
  }

  private evict(): void {
    while (this.entries.size > this.maxEntries) {
      const [sid, e] = this.entries.entries().next().value!;
      this.coalescer.forget(sid, true);
      this.entries.delete(sid);
      release(e);
    }
  }
}

/** What an entry out of the map still holds: its re-trim timer and queued inputs (a restore in flight sees it gone). */
function release(e: Entry): void {
  clearTimeout(e.retrimTimer);
  e.retrimTimer = undefined;
  e.queue = [];
}

/**
 * The stream a volatile input belongs to, for "the first of a step leaves at once": the step's text (deltas; the
 * agent itself), a tool call's progress, a task's output.
 */
function volatileStream(type: string, p: Record<string, unknown>): { stream: string; step: string } {
  if (type === 'tool.progress') return { stream: '|progress', step: String(p.tool_call_id) };
  if (type === 'shell.output') return { stream: '|shell', step: String(p.task_id) };
  return { stream: '', step: `${p.turn_id}:${p.step}` };
}

/**
 * Adds a batch to an agent's op journal: drops the oldest batches past the bounds (a packed block goes whole, so
 * a resume can reach up to one block less far than the bounds allow), packs the oldest raw ones past RAW_BYTES.
 */
function keep(log: AgentLog, b: KeptBatch): void {
  log.batches.push(b);
  log.bytes += b.text.length;
  log.rawBytes += b.text.length;
  log.count += 1;
  const over = () => log.count > OP_JOURNAL || log.bytes > OP_JOURNAL_BYTES;
  while (over() && log.packed.length) {
    const block = log.packed.shift()!;
    log.count -= block.count;
    log.bytes -= block.bytes;
  }
  let drop = 0;
  while (over() && log.batches.length - drop > 1) {
    const len = log.batches[drop++]!.text.length;
    log.bytes -= len;
    log.rawBytes -= len;
    log.count -= 1;
  }
  if (drop) log.batches.splice(0, drop);
  // The newest batch always stays unpacked (a resume right after it reads it as sent), however large it is.
  if (log.rawBytes <= RAW_BYTES || log.batches.length < 2) return;
  let n = 0;
  let bytes = 0;
  while (n < log.batches.length - 1 && bytes < PACK_BYTES) bytes += log.batches[n++]!.text.length;
  log.packed.push(pack(log.batches.splice(0, n)));
  log.rawBytes -= bytes;
}

/** Characters of a pending delta batch: appended text; a tool frame update counts as a full chunk (its spacing is splitToolInput's). */
function opsSize(ops: RecOp[]): number {
  let n = 0;
  for (const op of ops) n += op.op === 'append' ? op.text.length : 1_000_000;
  return n;
}

/**
 * Adds an op to a pending delta batch: an append right after the previous one on the same target extends it;
 * a frame upsert replaces the held upsert of the same frame where it stands (the frames in between are other
 * frames, so the client's result is the same, and a frame opened earlier keeps its place).
 */
function merge(ops: RecOp[], op: RecOp): void {
  const last = ops.at(-1);
  if (op.op === 'append' && last?.op === 'append' && sameTarget(last.target, op.target) && last.offset + last.text.length === op.offset) {
    ops[ops.length - 1] = { ...last, text: last.text + op.text };
    return;
  }
  if (op.op === 'frame.upsert') {
    for (let i = ops.length - 1; i >= 0; i--) {
      const o = ops[i]!;
      if (o.op === 'frame.upsert' && o.frame.frameId === op.frame.frameId && o.stepId === op.stepId) {
        ops[i] = op;
        return;
      }
    }
  }
  ops.push(op);
}

type AppendTarget = Extract<RecOp, { op: 'append' }>['target'];

/** Field by field (it runs for every merged delta). */
function sameTarget(a: AppendTarget, b: AppendTarget): boolean {
  if (a.type === 'task') return b.type === 'task' && a.taskId === b.taskId;
  return b.type === 'frame' && a.frameId === b.frameId && a.stepId === b.stepId && a.turnId === b.turnId;
}
