import type { Journal } from '../../../journal/journal.ts';
import type { JournalEvent } from '../../../journal/types.ts';
import { foldStream } from '../../../projections/lazy-projection.ts';
import { applyDelta } from '../../../projections/transcript/records.ts';
import type { EmittedOp, RecOp } from '../../../projections/transcript/records-state.ts';
import { liveTranscriptReducer } from '../../../projections/transcript/reducer.ts';
import type { TranscriptState } from '../../../projections/transcript/state.ts';
import { transcriptRole } from '../../../protocol/events/registry.ts';
import { GlobalEvents } from '../../../protocol/events/types.ts';
import type { Logger } from '../../app/logger.ts';
import type { Clock } from '../../lib/clock.ts';
import { DEFAULT_COALESCE_MS } from '../coalesce.ts';
import { opsFrame } from './frames.ts';

/**
 * The live side of the transcript channel (docs/transcript.md "Ops"): per session a fold of the journal kept
 * up to date with each committed event and each streamed delta, whose records handlers emit the ops of
 * spec/clients.md C2; per (session, agent) one batch counter (+1 per batch, delta batches included) and a
 * bounded op journal for `transcript_since` and GET /transcript/ops. GET /transcript of a live session reads
 * this fold, so its `seq` is the counter the ops continue.
 */

/** Batches kept per agent for resumes (as the reference server), and at most this many bytes of them. */
export const OP_JOURNAL = 2000;
export const OP_JOURNAL_BYTES = 1024 * 1024;
/** Sessions folded at once; the least recently used goes first. */
const MAX_ENTRIES = 64;
/** Later deltas of a step are merged into one batch per window (about one animation frame; src/ws/coalesce.ts). */
export const COALESCE_MS = DEFAULT_COALESCE_MS;

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

interface AgentLog { seq: number; batches: KeptBatch[]; bytes: number }

interface Pending { agentId: string; ops: RecOp[] }

interface Entry {
  sessionId: string;
  state: TranscriptState | null;
  /** Journal seq folded. */
  seq: number;
  /** Inputs that arrived while the entry was folding. */
  queue: Array<JournalEvent | { type: string; payload: Record<string, unknown> }>;
  ready: Promise<Entry>;
  logs: Map<string, AgentLog>;
  /** The counter each agent's log starts from (docs/transcript.md: a fresh fold never reuses an earlier fold's seqs). */
  base: number;
  /** Delta ops not sent yet, per agent. */
  pending: Map<string, Pending>;
  /** Step key of the last delta batch per agent: the first delta of a step is not held. */
  stepOf: Map<string, string>;
  timer: NodeJS.Timeout | null;
}

const ROLE_RANK: Record<string, Rank> = { turn: 1, block: 2, delta: 3 };

export class LiveTranscripts {
  private readonly entries = new Map<string, Entry>();
  private lastBase = 0;
  /** The fan-out's sink for each batch, in order per agent. */
  onBatch: (b: OpBatch) => void = () => {};
  /** Whether some connection has a transcript channel on the session (an untracked session is then folded). */
  wanted: (sessionId: string) => boolean = () => false;

  constructor(
    private readonly deps: { journal: Journal; clock: Clock; log: Logger },
    private readonly coalesceMs = COALESCE_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

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
      sessionId, state: null, seq: 0, queue: [], logs: new Map(), base, pending: new Map(), stepOf: new Map(), timer: null, ready: undefined as never,
    };
    e.ready = foldStream(this.deps.journal, liveTranscriptReducer, sessionId).then(({ state, seq }) => {
      e.state = state;
      e.seq = seq;
      for (const x of e.queue.splice(0)) this.input(e, x);
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
        if (this.wanted(ev.stream)) void this.ensure(ev.stream).catch((err) => this.deps.log.error({ err, session_id: ev.stream }, 'live transcript fold failed'));
        continue;
      }
      if (!e.state) e.queue.push(ev);
      else this.input(e, ev);
    }
  }

  /** Drops a session's fold, its op journal and its held deltas (the session was deleted). */
  forget(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (!e) return;
    if (e.timer) clearTimeout(e.timer);
    this.entries.delete(sessionId);
  }

  /** A streamed delta of a tracked session. */
  onVolatile(sessionId: string, type: string, payload: unknown): void {
    if (transcriptRole(type, true) !== 'delta') return;
    const e = this.entries.get(sessionId);
    if (!e) return;
    const x = { type, payload: payload as Record<string, unknown> };
    if (!e.state) e.queue.push(x);
    else this.input(e, x);
  }

  /**
   * Reads a tracked session's fold after sending its pending deltas: `view` gets the state and each agent's
   * watermark, synchronously, so what it builds is exactly what the batches after the watermark continue.
   */
  async read<T>(sessionId: string, view: (state: TranscriptState, watermark: (agentId: string) => number, e: Entry) => T): Promise<T> {
    const e = await this.ensure(sessionId);
    this.flushPending(e);
    return structuredClone(view(e.state!, (agentId) => e.logs.get(agentId)?.seq ?? e.base, e));
  }

  /** The batches after `since` when the op journal still reaches it (`complete`), oldest first. */
  since(e: Entry, agentId: string, since: number): { batches: KeptBatch[]; latest: number; complete: boolean } {
    // Read without creating: a query for any agent id must not grow the map.
    const log = e.logs.get(agentId) ?? { seq: e.base, batches: [], bytes: 0 };
    const oldest = log.batches[0]?.seq ?? log.seq + 1;
    if (since > log.seq || since < oldest - 1) return { batches: [], latest: log.seq, complete: false };
    return { batches: log.batches.filter((b) => b.seq > since), latest: log.seq, complete: true };
  }

  close(): void {
    for (const e of this.entries.values()) if (e.timer) clearTimeout(e.timer);
    this.entries.clear();
  }

  private log(e: Entry, agentId: string): AgentLog {
    let l = e.logs.get(agentId);
    if (!l) e.logs.set(agentId, (l = { seq: e.base, batches: [], bytes: 0 }));
    return l;
  }

  private input(e: Entry, x: JournalEvent | { type: string; payload: Record<string, unknown> }): void {
    const state = e.state!;
    const sink: EmittedOp[] = [];
    state.rec.sink = sink;
    try {
      if ('seq' in x) {
        if (x.seq <= e.seq) return;
        liveTranscriptReducer.apply(state, x);
        e.seq = x.seq;
      } else {
        applyDelta(state.rec, x.type, x.payload as never);
      }
    } catch (err) {
      // The fold is no longer trustworthy: drop it; the next read folds the journal again (its counter moves on).
      this.deps.log.error({ err, session_id: e.sessionId, type: x.type }, 'live transcript apply failed');
      this.entries.delete(e.sessionId);
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
        this.flushAgent(e, agentId);
        this.issue(e, agentId, rank, ops, false);
      }
      return;
    }
    const p = x.payload as { turn_id?: string; step?: number };
    const step = `${p.turn_id}:${p.step}`;
    for (const [agentId, ops] of byAgent) this.delta(e, agentId, step, ops);
  }

  /** The first delta batch of a step leaves at once; later ones wait for the window and leave merged. */
  private delta(e: Entry, agentId: string, step: string, ops: RecOp[]): void {
    const pending = e.pending.get(agentId);
    if ((e.stepOf.get(agentId) !== step && !pending) || this.coalesceMs <= 0) {
      e.stepOf.set(agentId, step);
      this.issue(e, agentId, 3, ops, true);
      return;
    }
    e.stepOf.set(agentId, step);
    if (!pending) e.pending.set(agentId, { agentId, ops: [...ops] });
    else for (const op of ops) merge(pending.ops, op);
    e.timer ??= setTimeout(() => {
      e.timer = null;
      this.flushPending(e);
    }, this.coalesceMs);
  }

  private flushAgent(e: Entry, agentId: string): void {
    const p = e.pending.get(agentId);
    if (!p) return;
    e.pending.delete(agentId);
    this.issue(e, agentId, 3, p.ops, true);
  }

  private flushPending(e: Entry): void {
    if (e.timer) clearTimeout(e.timer);
    e.timer = null;
    for (const agentId of [...e.pending.keys()]) this.flushAgent(e, agentId);
  }

  private issue(e: Entry, agentId: string, rank: Rank, ops: RecOp[], volatile: boolean): void {
    const log = this.log(e, agentId);
    const seq = ++log.seq;
    const text = opsFrame({ sessionId: e.sessionId, agentId, seq, volatile, ops, ts: this.deps.clock.now().toISOString() });
    const b: OpBatch = { sessionId: e.sessionId, agentId, seq, rank, ops, volatile, text };
    log.batches.push({ sessionId: e.sessionId, agentId, seq, rank, volatile, text });
    log.bytes += text.length;
    let drop = 0;
    while (log.batches.length - drop > OP_JOURNAL || (log.bytes > OP_JOURNAL_BYTES && log.batches.length - drop > 1)) log.bytes -= log.batches[drop++]!.text.length;
    if (drop) log.batches.splice(0, drop);
    try {
      this.onBatch(b);
    } catch (err) {
      this.deps.log.error({ err, session_id: e.sessionId }, 'transcript batch fan-out failed');
    }
  }

  private evict(): void {
    while (this.entries.size > this.maxEntries) {
      const [sid, e] = this.entries.entries().next().value!;
      if (e.timer) clearTimeout(e.timer);
      this.entries.delete(sid);
    }
  }
}

/** Adds an op to a pending delta batch: an append right after the previous one on the same target extends it. */
function merge(ops: RecOp[], op: RecOp): void {
  const last = ops.at(-1);
  if (op.op === 'append' && last?.op === 'append' && sameTarget(last.target, op.target) && last.offset + last.text.length === op.offset) {
    ops[ops.length - 1] = { ...last, text: last.text + op.text };
    return;
  }
  if (op.op === 'frame.upsert' && last?.op === 'frame.upsert' && last.frame.frameId === op.frame.frameId && last.stepId === op.stepId) {
    ops[ops.length - 1] = op;
    return;
  }
  ops.push(op);
}

type AppendTarget = Extract<RecOp, { op: 'append' }>['target'];

/** Field by field (it runs for every merged delta). */
function sameTarget(a: AppendTarget, b: AppendTarget): boolean {
  if (a.type === 'task') return b.type === 'task' && a.taskId === b.taskId;
  return b.type === 'frame' && a.frameId === b.frameId && a.stepId === b.stepId && a.turnId === b.turnId;
}
