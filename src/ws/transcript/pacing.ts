import type { LiveListener, LiveTranscripts, OpBatch, Rank } from '../../../projections/transcript/live/live-transcripts.ts';
import type { RecOp } from '../../../projections/transcript/records-state.ts';
import type { Logger } from '../../lib/logger.ts';
import { Coalescer, DEFAULT_COALESCE_MS } from '../coalesce.ts';
import type { DurableType, VolatileType } from '../../../protocol/events/registry.ts';

/**
 * The pacing of the transcript channel's batches (docs/transcript.md "Ops"): the ops of a committed event leave at
 * once as one batch per agent; streamed deltas are merged per window (src/ws/coalesce.ts), the first of a step at
 * once. Each batch is appended to the live transcripts' op journal once as it leaves (its seq), then handed to
 * every outlet (the hubs' fan-outs): one pacing per live transcripts, built with them (src/app/phases/transport.ts),
 * so a batch has one seq however many hubs deliver it (spec/clients.md C, "ops seq").
 */

/**
 * A streamed tool call's input: the contract has no `append` for tool frames (spec/clients.md C: text and
 * thinking frames only, any other target is a gap), so each update re-sends the whole `inputText`. Updates of
 * one tool frame are spaced by its length / TOOL_INPUT_CHARS_PER_MS (at least one window, at most
 * TOOL_INPUT_MAX_MS): about 32 KB/s of re-sent input per subscriber however large the input grows, instead of
 * the whole input every window.
 */
export const TOOL_INPUT_CHARS_PER_MS = 32;
export const TOOL_INPUT_MAX_MS = 1000;

export interface TranscriptPacingDeps {
  live: LiveTranscripts;
  log: Logger;
  coalesceMs?: number;
}

/** Where the batches go: a hub's fan-out (src/ws/fanout.ts). */
export interface PacingOutlet {
  /** Each batch as it leaves, in order per agent (to the connections whose grade carries it). */
  deliver(b: OpBatch): void;
  /** Whether some connection has a transcript channel on the session. */
  wanted(sessionId: string): boolean;
}

export class TranscriptPacing implements LiveListener {
  /** Delta ops not sent yet: group = session, lane = agent. */
  private readonly coalescer: Coalescer<RecOp[]>;
  /** When each streamed tool frame (`<agentId>|<frameId>`) of a session was last sent, for the tool-input spacing. */
  private readonly toolSent = new Map<string, Map<string, number>>();
  private readonly coalesceMs: number;
  private readonly unlisten: () => void;
  private readonly outlets = new Set<PacingOutlet>();

  constructor(private readonly deps: TranscriptPacingDeps) {
    this.coalesceMs = deps.coalesceMs ?? DEFAULT_COALESCE_MS;
    this.coalescer = new Coalescer<RecOp[]>({
      windowMs: this.coalesceMs,
      onError: (err) => deps.log.error({ err }, 'transcript delta coalescer: a timed release failed'),
      size: opsSize,
      merge: (held, next) => {
        for (const op of next) merge(held, op);
        return held;
      },
      split: (sessionId, agentId, ops, now) => this.splitToolInput(sessionId, agentId, ops, now),
      // A newer input of a tool frame held back waits with it (merge replaces the held upsert).
      holdsWith: (held, next) => next.every((op) => op.op === 'frame.upsert' && op.frame.kind === 'tool'
        && held.some((o) => o.op === 'frame.upsert' && o.frame.frameId === op.frame.frameId && o.stepId === op.stepId)),
      send: (sessionId, agentId, ops) => this.issue(sessionId, agentId, 3, ops, true),
    });
    this.unlisten = deps.live.listen(this);
  }

  /** Adds an outlet for the batches; returns its removal. */
  connect(outlet: PacingOutlet): () => void {
    this.outlets.add(outlet);
    return () => void this.outlets.delete(outlet);
  }

  committed(sessionId: string, type: DurableType, rank: Rank, byAgent: Map<string, RecOp[]>): void {
    for (const [agentId, ops] of byAgent) {
      this.coalescer.flush(sessionId, agentId);
      this.issue(sessionId, agentId, rank, ops, false);
    }
    if (type === 'turn.ended') this.toolSent.delete(sessionId);
  }

  streamed(sessionId: string, type: VolatileType, payload: Record<string, unknown>, byAgent: Map<string, RecOp[]>): void {
    const { stream, step } = volatileStream(type, payload);
    // The first delta batch of a step (of a call's progress, of a task's output) leaves at once; later ones wait for the window and leave merged.
    for (const [agentId, ops] of byAgent) this.coalescer.push(sessionId, agentId, `${agentId}${stream}`, step, ops);
  }

  flush(sessionId: string): void {
    this.coalescer.flush(sessionId);
  }

  dropped(sessionId: string): void {
    this.coalescer.forget(sessionId, true);
    this.toolSent.delete(sessionId);
  }

  wanted(sessionId: string): boolean {
    for (const o of this.outlets) if (o.wanted(sessionId)) return true;
    return false;
  }

  close(): void {
    this.unlisten();
    this.coalescer.close();
    this.toolSent.clear();
    this.outlets.clear();
  }

  /** The batch takes its seq (once), then goes to every outlet; one outlet's fault costs the others nothing. */
  private issue(sessionId: string, agentId: string, rank: Rank, ops: RecOp[], volatile: boolean): void {
    let b: OpBatch | undefined;
    try {
      b = this.deps.live.append(sessionId, agentId, rank, ops, volatile);
    } catch (err) {
      this.deps.log.error({ err, session_id: sessionId }, 'transcript batch append failed');
      return;
    }
    if (!b) return;
    if (volatile) this.noteToolSent(sessionId, agentId, ops);
    for (const o of this.outlets) {
      try {
        o.deliver(b);
      } catch (err) {
        this.deps.log.error({ err, session_id: sessionId }, 'transcript batch fan-out failed');
      }
    }
  }

  private noteToolSent(sessionId: string, agentId: string, ops: RecOp[]): void {
    const at = performance.now();
    let sent = this.toolSent.get(sessionId);
    for (const op of ops) {
      if (op.op !== 'frame.upsert' || op.frame.kind !== 'tool') continue;
      if (!sent) this.toolSent.set(sessionId, (sent = new Map()));
      sent.set(`${agentId}|${op.frame.frameId}`, at);
    }
  }

  /** At a timed release: a streamed tool frame already sent waits until its spacing has passed (TOOL_INPUT_CHARS_PER_MS). */
  private splitToolInput(sessionId: string, agentId: string, ops: RecOp[], now: number): { now?: RecOp[]; later?: RecOp[]; at?: number } {
    if (!this.deps.live.has(sessionId)) return { now: ops };
    const sent = this.toolSent.get(sessionId);
    let later: RecOp[] | undefined;
    // When the first held-back update may leave: the coalescer's timer is armed once for it.
    let at = Infinity;
    const out: RecOp[] = [];
    for (const op of ops) {
      if (op.op === 'frame.upsert' && op.frame.kind === 'tool') {
        const last = sent?.get(`${agentId}|${op.frame.frameId}`);
        const len = (op.frame.inputText?.length ?? 0) + (op.frame.progress?.text?.length ?? 0);
        const gap = Math.min(TOOL_INPUT_MAX_MS, Math.max(this.coalesceMs, len / TOOL_INPUT_CHARS_PER_MS));
        if (last !== undefined && now - last < gap) {
          (later ??= []).push(op);
          at = Math.min(at, last + gap);
          continue;
        }
      }
      out.push(op);
    }
    return { ...(out.length ? { now: out } : {}), ...(later ? { later, at } : {}) };
  }
}

/**
 * The stream a volatile input belongs to, for "the first of a step leaves at once": the step's text (deltas; the
 * agent itself), a tool call's progress, a task's output.
 */
function volatileStream(type: VolatileType, p: Record<string, unknown>): { stream: string; step: string } {
  if (type === 'tool.progress') return { stream: '|progress', step: String(p.tool_call_id) };
  if (type === 'shell.output') return { stream: '|shell', step: String(p.task_id) };
  return { stream: '', step: `${p.turn_id}:${p.step}` };
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
