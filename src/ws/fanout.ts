import type { Journal } from '../../journal/journal.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Clock } from '../app/context.ts';
import type { Logger } from '../app/logger.ts';
import type { WsConnection } from './connection.ts';
import { agentIdOf } from './replay.ts';
import { durableFrame, GLOBAL_SESSION_ID, volatileFrame } from './server-frames.ts';

/** Global-stream types sent to every connection; other global-stream types are internal. */
export function isGlobalEventType(type: string): boolean {
  return type === 'session.meta.updated' || /^event\.(session|workspace|config|model_catalog)\./.test(type);
}

/**
 * Routes events to connections: global events to all, session events to
 * subscribers. Each frame is serialised once, whatever the number of receivers.
 */
export class FanOut {
  constructor(
    private readonly deps: { journal: Journal; clock: Clock; log: Logger },
    private readonly connections: () => Iterable<WsConnection>,
  ) {}

  /** Listener of the journal's `committed` event: runs after each batch is on disk. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    const conns = [...this.connections()];
    // One socket write per connection per batch instead of one per frame.
    for (const c of conns) c.cork();
    try {
      for (const e of events) this.route(e, conns);
    } catch (err) {
      // Never let a fan-out fault break the journal's flush loop; the events are safe on disk.
      this.deps.log.error({ err }, 'ws fan-out failed');
    } finally {
      for (const c of conns) c.uncork();
    }
  };

  /** A volatile frame to a session's subscribers: never journaled, never replayed. */
  publishVolatile(sessionId: string, type: string, payload: unknown, offset?: number): void {
    let text: string | undefined;
    const agentId = agentIdOf(payload);
    const seq = this.deps.journal.head(sessionId)?.seq ?? 0;
    for (const c of this.connections()) {
      if (!c.subs.has(sessionId)) continue;
      text ??= volatileFrame({ type, seq, offset, sessionId, now: this.deps.clock.now(), payload });
      this.corkUntilNextTick(c);
      c.deliver(sessionId, { seq, volatile: true, text }, agentId);
    }
  }

  private readonly tickCorked = new Set<WsConnection>();

  /** Streams of deltas leave in one socket write per connection per event-loop turn. */
  private corkUntilNextTick(c: WsConnection): void {
    if (this.tickCorked.has(c)) return;
    if (this.tickCorked.size === 0) {
      setImmediate(() => {
        for (const corked of this.tickCorked) corked.uncork();
        this.tickCorked.clear();
      });
    }
    this.tickCorked.add(c);
    c.cork();
  }

  private route(e: JournalEvent, conns: WsConnection[]): void {
    if (e.imported) return;
    if (e.stream === GLOBAL_STREAM) {
      if (!isGlobalEventType(e.type)) return;
      const text = durableFrame(e, GLOBAL_SESSION_ID);
      for (const c of conns) c.send(text);
      return;
    }
    let text: string | undefined;
    const agentId = agentIdOf(e.payload);
    for (const c of conns) {
      if (!c.subs.has(e.stream)) continue;
      text ??= durableFrame(e, e.stream);
      c.deliver(e.stream, { seq: e.seq, volatile: false, text }, agentId);
    }
  }
}
