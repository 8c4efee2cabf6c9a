import type { Journal } from '../../journal/journal.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { WsConnection } from './connection.ts';
import { DEFAULT_COALESCE_MS, DeltaCoalescer } from './coalesce.ts';
import { agentIdOf } from './replay.ts';
import { durableFrame, GLOBAL_SESSION_ID, volatileFrame } from './server-frames.ts';
import type { OpBatch } from '../../projections/transcript/live/live-transcripts.ts';
import type { TranscriptPacing } from './transcript/pacing.ts';
import { eventDef, type VolatileType } from '../../protocol/events/registry.ts';
import type { WireContext } from '../../protocol/events/wire.ts';
import { known } from '../../protocol/events/known.ts';

/** Longest a streamed frame waits for its batch's socket write while frames keep coming. */
const VOLATILE_FLUSH_MS = 4;
/** The same for durable frames: their writes to every connection were a fifth of the CPU under bench/stream-load.ts. */
const DURABLE_FLUSH_MS = 16;

/**
 * Routes events to connections: global events to all, session events to
 * subscribers. Each frame is serialised once, whatever the number of receivers.
 */
export class FanOut {
  private readonly coalescer: DeltaCoalescer;
  /** Removes sendBatch from the transcript pacing's outlets (one pacing for every hub: each batch has one seq). */
  private readonly disconnect: () => void;
  constructor(
    private readonly deps: { journal: Journal; clock: Clock; log: Logger; transcriptPacing: TranscriptPacing; wire: WireContext },
    private readonly connections: () => Iterable<WsConnection>,
    coalesceMs = DEFAULT_COALESCE_MS,
  ) {
    this.coalescer = new DeltaCoalescer(coalesceMs, this.sendVolatile);
    this.disconnect = deps.transcriptPacing.connect({
      deliver: this.sendBatch,
      wanted: (sid) => {
        for (const c of this.connections()) if (c.transcripts.has(sid)) return true;
        return false;
      },
    });
  }

  /** A transcript ops batch (transcript/pacing.ts) to the connections whose grade carries it. */
  private readonly sendBatch = (b: OpBatch): void => {
    let scheduled = false;
    for (const c of this.connections()) {
      if (!c.transcripts.size || !c.wantsBatch(b.sessionId, b.agentId, b.rank)) continue;
      // The flush is scheduled once for every receiver, before any delivery: one that throws leaves no socket corked for good.
      if (!scheduled) this.flushWithin(b.volatile ? VOLATILE_FLUSH_MS : DURABLE_FLUSH_MS);
      scheduled = true;
      this.cork(c);
      c.deliverOps(b.sessionId, { agentId: b.agentId, seq: b.seq, volatile: b.volatile, text: b.text });
    }
  };

  /** Listener of the journal's `committed` event: runs after each batch is on disk. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    const conns = [...this.connections()];
    // The frames of this batch join the volatile ones in the next socket flush (flushWithin): one write per
    // connection per flush, instead of one per committed batch (with broadcasts, every batch wrote to every
    // connection: a quarter of the daemon's CPU under stream-load went to writev).
    if (conns.length) this.flushWithin(DURABLE_FLUSH_MS);
    for (const c of conns) this.cork(c);
    try {
      // The transcript ops of these events already left: the live transcripts' subscriber runs before this one
      // (src/app/subscribers.ts), so a client that reads both sees the ops of an event no later than its legacy frame.
      // Held deltas of a session leave before its next durable frame.
      for (const e of events) {
        this.coalescer.flush(e.stream);
        if (known(e).type === 'turn.ended') this.coalescer.forget(e.stream, (e.payload as { agent_id?: string }).agent_id ?? 'main');
      }
      for (const e of events) this.route(e, conns);
    } catch (err) {
      // Never let a fan-out fault break the journal's flush loop; the events are safe on disk.
      this.deps.log.error({ err }, 'ws fan-out failed');
    }
  };

  /** A volatile frame to a session's subscribers: never journaled, never replayed; later deltas of a step coalesced. */
  publishVolatile(sessionId: string, type: VolatileType, payload: unknown, offset?: number): void {
    if (!this.coalescer.push(sessionId, type, payload, offset)) this.sendVolatile(sessionId, type, payload, offset);
  }

  close(): void {
    this.disconnect();
    this.coalescer.close();
    this.clearFlushTimer();
    this.flushAt = Infinity;
    this.corked.clear();
  }

  private readonly sendVolatile = (sessionId: string, type: VolatileType, payload: unknown, offset?: number): void => {
    let text: string | undefined;
    const agentId = agentIdOf(payload);
    const seq = this.deps.journal.headSeq(sessionId);
    for (const c of this.connections()) {
      if (c.subs.has(sessionId)) {
        if (text === undefined) {
          text = volatileFrame({ type, seq, offset, sessionId, now: this.deps.clock.now(), payload, ctx: this.deps.wire });
          this.flushWithin(VOLATILE_FLUSH_MS);
        }
        this.cork(c);
        c.deliver(sessionId, type, { seq, volatile: true, text }, agentId);
      }
    }
  };

  private readonly corked = new Set<WsConnection>();
  /** When the scheduled flush runs (performance.now() ms), Infinity when none is scheduled. */
  private flushAt = Infinity;
  private flushTimer: { immediate: NodeJS.Immediate } | { timeout: NodeJS.Timeout } | null = null;
  private lastFlush = -Infinity;

  /**
   * Frames leave in batches: the first after a quiet spell at the end of the current event-loop
   * turn (no added latency); under a steady flow, streamed (volatile) frames at most every
   * VOLATILE_FLUSH_MS after the last write and durable ones at most every DURABLE_FLUSH_MS, so 20
   * streaming sessions cost a socket write per connection every few ms rather than one per loop
   * turn or committed batch (broadcast session events reach every connection), and a first delta is
   * not held behind the turn's durable frames. Order holds: every frame goes through the same corked socket.
   * A sender schedules the flush once for all its receivers (`flushWithin`) and corks each of them (`cork`).
   */
  private cork(c: WsConnection): void {
    c.cork();
    this.corked.add(c);
  }

  /** The flush of every corked connection, at most `everyMs` after the last one (earlier when already scheduled so). */
  private flushWithin(everyMs: number): void {
    const now = performance.now();
    const at = Math.max(now, this.lastFlush + everyMs);
    if (at >= this.flushAt) return;
    if (this.flushTimer) this.clearFlushTimer();
    this.flushAt = at;
    this.flushTimer = at <= now ? { immediate: setImmediate(this.flush) } : { timeout: setTimeout(this.flush, at - now) };
  }

  private clearFlushTimer(): void {
    const t = this.flushTimer;
    this.flushTimer = null;
    if (t && 'immediate' in t) clearImmediate(t.immediate);
    else if (t) clearTimeout(t.timeout);
  }

  private readonly flush = (): void => {
    this.flushTimer = null;
    this.flushAt = Infinity;
    this.lastFlush = performance.now();
    for (const c of this.corked) c.uncork();
    this.corked.clear();
  };

  private route(e: JournalEvent, conns: WsConnection[]): void {
    if (e.imported) return;
    // Registry receivers: broadcasts go to every connection; internal events (gui, uploads, trust) to none.
    const receivers = eventDef(e.type)?.receivers;
    if (e.stream === GLOBAL_STREAM) {
      if (receivers !== 'broadcast') return;
      const text = durableFrame(e, GLOBAL_SESSION_ID);
      for (const c of conns) c.send(text);
      return;
    }
    if (receivers === 'internal') return;
    if (receivers === 'broadcast') {
      // A session event for every connection (spec/clients.md E5: work/status/meta), stamped with
      // the session's own id, seq and epoch; subscribers get it in order with their replay.
      const text = durableFrame(e, e.stream, this.deps.wire);
      for (const c of conns) {
        if (c.subs.has(e.stream)) c.deliver(e.stream, e.type, { seq: e.seq, volatile: false, text }, undefined);
        else c.send(text);
      }
      return;
    }
    let text: string | undefined;
    const agentId = agentIdOf(e.payload);
    for (const c of conns) {
      if (!c.subs.has(e.stream)) continue;
      text ??= durableFrame(e, e.stream, this.deps.wire);
      c.deliver(e.stream, e.type, { seq: e.seq, volatile: false, text }, agentId);
    }
  }
}
