import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import type { ConnectionInfo } from '../../protocol/schemas/connections.ts';
import { carriesRank, gradeOf, suppressesLegacy, type HeldOp, type TranscriptSub } from './transcript/state.ts';

/** A frame waiting behind a cursor replay. */
interface HeldFrame {
  seq: number;
  volatile: boolean;
  text: string;
}

export interface Subscription {
  /** Agent ids to keep (events without `agent_id` always pass); null = all. */
  agents: Set<string> | null;
  /** Frames held back while a cursor replay of this session runs; null once live. */
  held: HeldFrame[] | null;
}

export interface ConnectionLimits {
  /** Bytes queued for a client (socket buffer + replay hold-back) above which it is closed with 1013. */
  highWater: number;
  /** How long a shed client may take to read its close frame before the socket is destroyed. */
  closeGraceMs: number;
}

export const CLOSE_SLOW_CONSUMER = 1013;
export const CLOSE_GOING_AWAY = 1001;
/** Bytes of corked frames after which a batch is flushed to the socket early. */
const CORK_FLUSH_BYTES = 64 * 1024;

/** One WebSocket client: its subscriptions and a send path that never queues without bound. */
export class WsConnection {
  readonly subs = new Map<string, Subscription>();
  /** Transcript channels (subscribe_v2), by session id. */
  readonly transcripts = new Map<string, TranscriptSub>();
  hasClientHello = false;
  private heldBytes = 0;
  private closing = false;

  constructor(
    readonly id: string,
    private readonly ws: WebSocket,
    private readonly raw: Duplex,
    private readonly meta: { connectedAt: Date; remoteAddress: string | null; userAgent: string | null },
    private readonly limits: ConnectionLimits,
    /** Called once when the connection stops taking frames (shed or closed). */
    private readonly onGone: (c: WsConnection) => void,
  ) {
    ws.once('close', () => {
      this.closing = true;
      this.dropHeld();
      onGone(this);
    });
  }

  get open(): boolean {
    return !this.closing && this.ws.readyState === WebSocket.OPEN;
  }

  info(): ConnectionInfo {
    return {
      id: this.id,
      connected_at: this.meta.connectedAt.toISOString(),
      remote_address: this.meta.remoteAddress,
      user_agent: this.meta.userAgent,
      has_client_hello: this.hasClientHello,
      subscriptions: [...this.subs.keys()],
    };
  }

  private corked = false;


  /** Holds this connection's socket writes until `uncork`, so a batch of frames leaves in one write. */
  cork(): void {
    if (this.corked || !this.open) return;
    this.corked = true;
    this.raw.cork();
  }

  uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    this.raw.uncork();
  }

  /** Sends now, or sheds the client when too much is already queued for it. */
  send(text: string): void {
    if (!this.open) return;
    // Corked frames count as queued: flush them to the kernel before judging the client slow.
    if (this.corked && this.ws.bufferedAmount >= Math.min(CORK_FLUSH_BYTES, this.limits.highWater / 4)) {
      this.raw.uncork();
      this.raw.cork();
    }
    if (this.ws.bufferedAmount + this.heldBytes > this.limits.highWater) return this.shed();
    this.ws.send(text);
  }

  /** A session frame of `type`: filtered by agent, held back during that session's replay. */
  deliver(sessionId: string, type: string, frame: HeldFrame, agentId: unknown): void {
    const sub = this.subs.get(sessionId);
    if (!sub || !this.open || !passesFilter(sub.agents, agentId)) return;
    if (this.transcripts.size && this.suppressed(sessionId, type, agentId, frame.volatile)) return;
    if (!sub.held) return this.send(frame.text);
    sub.held.push(frame);
    this.heldBytes += frame.text.length;
    if (this.ws.bufferedAmount + this.heldBytes > this.limits.highWater) this.shed();
  }

  /** True when the agent's legacy frames give way to its transcript ops on this connection. */
  suppressed(sessionId: string, type: string, agentId: unknown, volatile: boolean): boolean {
    return suppressesLegacy(this.transcripts.get(sessionId), type, agentId, volatile);
  }

  /** A transcript ops frame the connection wants (`wantsBatch`): sent, or held during the baseline read. */
  deliverOps(sessionId: string, op: HeldOp): void {
    const sub = this.transcripts.get(sessionId);
    if (!sub || !this.open) return;
    if (!sub.held) return this.send(op.text);
    sub.held.push(op);
    this.heldBytes += op.text.length;
    if (this.ws.bufferedAmount + this.heldBytes > this.limits.highWater) this.shed();
  }

  /**
   * Ends a transcript baseline: the ops held while it was read are all covered by it (the baseline is read
   * and sent in one synchronous step, after every held batch was applied to the fold), so they are dropped.
   */
  releaseOps(sessionId: string, sub: TranscriptSub): void {
    if (this.transcripts.get(sessionId) !== sub || !sub.held) return;
    for (const f of sub.held) this.heldBytes -= f.text.length;
    sub.held = null;
  }

  /** Whether this connection takes an ops batch of the agent at this rank (its grade carries it). */
  wantsBatch(sessionId: string, agentId: string, rank: number): boolean {
    const sub = this.transcripts.get(sessionId);
    return sub !== undefined && this.open && carriesRank(gradeOf(sub, agentId), rank);
  }

  /** Sets (or replaces) a session's transcript channel; a replaced baseline read stops at its next step. */
  subscribeTranscript(sessionId: string, sub: TranscriptSub): void {
    this.unsubscribeTranscript(sessionId);
    this.transcripts.set(sessionId, sub);
  }

  unsubscribeTranscript(sessionId: string): void {
    const sub = this.transcripts.get(sessionId);
    if (sub?.held) for (const f of sub.held) this.heldBytes -= f.text.length;
    this.transcripts.delete(sessionId);
  }

  /**
   * Ends a replay that stopped at `lastSeq`: held durable frames already
   * replayed and volatile frames older than the last replayed event are stale.
   */
  release(sessionId: string, sub: Subscription, lastSeq: number): void {
    if (this.subs.get(sessionId) !== sub || !sub.held) return;
    const held = sub.held;
    sub.held = null;
    for (const f of held) this.heldBytes -= f.text.length;
    for (const f of held) {
      if (f.volatile ? f.seq >= lastSeq : f.seq > lastSeq) this.send(f.text);
    }
  }

  /** Sets (or replaces) a session's subscription; a replaced replay stops at its next step. */
  subscribe(sessionId: string, sub: Subscription): void {
    this.unsubscribe(sessionId);
    this.subs.set(sessionId, sub);
  }

  unsubscribe(sessionId: string): void {
    const sub = this.subs.get(sessionId);
    if (sub?.held) for (const f of sub.held) this.heldBytes -= f.text.length;
    this.subs.delete(sessionId);
  }

  /** Resolves once the socket has flushed its buffer, when it asked for a drain (or closed). */
  drained(): Promise<void> {
    if (!this.open || !this.raw.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.raw.off('drain', done);
        this.ws.off('close', done);
        resolve();
      };
      this.raw.on('drain', done);
      this.ws.on('close', done);
    });
  }

  /**
   * Slow-consumer policy: send nothing more, close with 1013 behind what is
   * already queued; the client reconnects with its cursors and replays the gap.
   */
  private shed(): void {
    this.fail(CLOSE_SLOW_CONSUMER, 'slow consumer: reconnect with cursors');
  }

  /** Stops sending and closes with `code` after what is already queued; destroyed if the client does not read it in time. */
  fail(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.dropHeld();
    this.onGone(this);
    this.ws.close(code, reason);
    const timer = setTimeout(() => this.ws.terminate(), this.limits.closeGraceMs);
    timer.unref();
    this.ws.once('close', () => clearTimeout(timer));
  }

  /** Closes with 1001 (server shutdown); resolves once closed, forcing it after `graceMs`. */
  shutdown(graceMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      const timer = setTimeout(() => this.ws.terminate(), graceMs);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.closing = true;
      if (this.ws.readyState === WebSocket.OPEN) this.ws.close(CLOSE_GOING_AWAY, 'server shutting down');
    });
  }

  private dropHeld(): void {
    for (const sub of this.subs.values()) sub.held = null;
    for (const sub of this.transcripts.values()) sub.held = null;
    this.heldBytes = 0;
  }
}

/** agent_filter: events without an agent id always pass. */
export function passesFilter(agents: Set<string> | null, agentId: unknown): boolean {
  return !agents || typeof agentId !== 'string' || agents.has(agentId);
}
