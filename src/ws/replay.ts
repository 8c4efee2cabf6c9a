import type { Journal } from '../../journal/journal.ts';
import type { StreamHead } from '../../journal/types.ts';
import type { Logger } from '../lib/logger.ts';
import { passesFilter, type Subscription, type WsConnection } from './connection.ts';
import { eventDef } from '../../protocol/events/registry.ts';
import type { WireContext } from '../../protocol/events/wire.ts';
import { MAX_EVENT_BUFFER_SIZE, type ResyncReason } from '../../protocol/ws/server-frames.ts';
import { durableFrame } from './server-frames.ts';

/** Why a cursor cannot be replayed, or undefined when it can. */
export function resyncReason(cursor: { seq: number; epoch: string }, head: StreamHead | undefined): ResyncReason | undefined {
  if (!head) return 'invalid_cursor';
  if (cursor.epoch !== head.epoch) return 'epoch_mismatch';
  if (cursor.seq > head.seq) return 'invalid_cursor';
  if (head.seq - cursor.seq > MAX_EVENT_BUFFER_SIZE) return 'too_far_behind';
  return undefined;
}

export function agentIdOf(payload: unknown): unknown {
  return payload && typeof payload === 'object' ? (payload as { agent_id?: unknown }).agent_id : undefined;
}

/**
 * Sends the durable events after `afterSeq` from the journal, paced by the
 * socket, then releases the live frames held meanwhile. The subscription was
 * set to hold before the read began, so every event committed after the read's
 * snapshot is held: no gap, and held duplicates are dropped by seq.
 */
export async function replay(deps: { journal: Journal; log: Logger; wire: WireContext }, conn: WsConnection, sessionId: string, sub: Subscription, afterSeq: number): Promise<void> {
  const { journal, log } = deps;
  let last = afterSeq;
  try {
    const events = await journal.readRange(sessionId, afterSeq + 1);
    for (const e of events) {
      if (!conn.open || conn.subs.get(sessionId) !== sub) return;
      const agentId = agentIdOf(e.payload);
      // A read model's input (file.changed) is never sent.
      const internal = eventDef(e.type)?.receivers === 'internal';
      if (!internal && passesFilter(sub.agents, agentId) && !conn.suppressed(sessionId, e.type, agentId, false)) conn.send(durableFrame(e, sessionId, deps.wire));
      last = e.seq;
      await conn.drained();
    }
  } catch (err) {
    // Releasing live frames after a failed read would leave a silent gap; closing makes the client retry.
    log.error({ err, session_id: sessionId, ws_connection_id: conn.id }, 'ws replay failed');
    conn.fail(1011, 'replay failed: reconnect with cursors');
    return;
  }
  conn.release(sessionId, sub, last);
}
