import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { Logger } from '../app/logger.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../sessions/lookup.ts';
import type { Subscription, WsConnection } from './connection.ts';
import type { SubscribePayload } from './frames.ts';
import { replay, resyncReason } from './replay.ts';
import { resyncFrame } from './server-frames.ts';
import { ok, type Outcome } from './outcome.ts';


type Refused = { not_found: string[]; held_by_other_instance: unknown[] };

/** The sessions a subscribe may follow and the journal its replays read. */
export type SubscribeDeps = OwnedSessionLookup & { journal: EventJournal; clock: Clock; log: Logger };

/** True (and the reason recorded) when this connection cannot follow the session: unknown (40401) or held by another instance (40901). */
function refuse(deps: OwnedSessionLookup, id: string, refused: Refused): boolean {
  try {
    findOwnedSession(deps, id);
    return false;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === Codes.SESSION_NOT_FOUND) refused.not_found.push(id);
    else refused.held_by_other_instance.push(err.details);
    return true;
  }
}

/**
 * `subscribe`: subscribes every known session; a session with a cursor is
 * held (live frames buffered) from now, and replayed or told to resync once
 * the ack has gone out. Order on the wire: ack, replay (or resync_required), live.
 */
export function subscribe(deps: SubscribeDeps, conn: WsConnection, p: SubscribePayload): Outcome {
  const agents = p.agent_filter ? new Set(p.agent_filter) : null;
  const refused: Refused = { not_found: [], held_by_other_instance: [] };
  const subscribed: string[] = [];
  const followUps: (() => void)[] = [];
  for (const id of new Set(p.session_ids)) {
    if (refuse(deps, id, refused)) continue;
    subscribed.push(id);
    const cursor = p.cursors?.[id];
    const existing = conn.subs.get(id);
    if (!cursor) {
      if (existing) existing.agents = agents;
      else conn.subscribe(id, { agents, held: null });
      continue;
    }
    const head = deps.journal.head(id);
    const reason = resyncReason(cursor, head);
    if (reason) {
      conn.subscribe(id, { agents, held: null });
      followUps.push(() => conn.send(resyncFrame(id, reason, head, deps.clock.now())));
      continue;
    }
    const sub: Subscription = { agents, held: [] };
    conn.subscribe(id, sub);
    followUps.push(() => void replay(deps.journal, deps.log, conn, id, sub, cursor.seq));
  }
  const after = () => followUps.forEach((f) => f());
  const payload = { subscribed };
  if (refused.not_found.length) {
    return { code: Codes.SESSION_NOT_FOUND, msg: `session not found: ${refused.not_found.join(', ')}`, payload, details: compact(refused), after };
  }
  if (refused.held_by_other_instance.length) {
    return { code: Codes.SESSION_BUSY, msg: 'session is held by another svc-code instance on this home; use that instance', payload, details: compact(refused), after };
  }
  return ok(payload, after);
}

function compact(r: Refused): Partial<Refused> {
  const out: Partial<Refused> = {};
  if (r.not_found.length) out.not_found = r.not_found;
  if (r.held_by_other_instance.length) out.held_by_other_instance = r.held_by_other_instance;
  return out;
}
