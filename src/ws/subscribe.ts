import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { WireContext } from '../../protocol/events/wire.ts';
import type { Logger } from '../lib/logger.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../sessions/lookup.ts';
import type { Subscription, WsConnection } from './connection.ts';
import type { SubscribePayload } from '../../protocol/ws/client-frames.ts';
import { replay, resyncReason } from './replay.ts';
import { resyncFrame } from './server-frames.ts';
import { ok, type Outcome } from './outcome.ts';


type Refused = { not_found: string[]; held_by_other_instance: unknown[] };

/** The sessions a subscribe may follow and the journal its replays read. */
/** `wire`: what the replayed frames read besides their events (their place in their agent's turns, spec/clients.md F). */
export type SubscribeDeps = OwnedSessionLookup & { journal: EventJournal; clock: Clock; log: Logger; wire: WireContext };

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

/** A cursor as `subscribe` or `client_hello` carries it (client_hello's may leave out the epoch). */
type LooseCursor = { seq: number; epoch?: string | undefined };

interface Subscribed {
  subscribed: string[];
  refused: Refused;
  /** Sessions told to resync (a resync_required frame follows the ack). */
  resync: string[];
  after: () => void;
}

/**
 * Subscribes every known session of `ids`; a session with a cursor is held (live frames
 * buffered) from now, and replayed or told to resync once the ack has gone out (`after`).
 * A cursor without an epoch is taken in the stream's current epoch.
 */
function subscribeSessions(deps: SubscribeDeps, conn: WsConnection, ids: Iterable<string>, cursors: Record<string, LooseCursor> | undefined, filter: string[] | null | undefined): Subscribed {
  const agents = filter ? new Set(filter) : null;
  const refused: Refused = { not_found: [], held_by_other_instance: [] };
  const subscribed: string[] = [];
  const resync: string[] = [];
  const followUps: (() => void)[] = [];
  for (const id of new Set(ids)) {
    if (refuse(deps, id, refused)) continue;
    subscribed.push(id);
    const loose = cursors?.[id];
    const existing = conn.subs.get(id);
    if (!loose) {
      if (existing) existing.agents = agents;
      else conn.subscribe(id, { agents, held: null });
      continue;
    }
    const head = deps.journal.head(id);
    const cursor = { seq: loose.seq, epoch: loose.epoch ?? head?.epoch ?? '' };
    const reason = resyncReason(cursor, head);
    if (reason) {
      conn.subscribe(id, { agents, held: null });
      resync.push(id);
      followUps.push(() => conn.send(resyncFrame(id, reason, head, deps.clock.now())));
      continue;
    }
    const sub: Subscription = { agents, held: [] };
    conn.subscribe(id, sub);
    followUps.push(() => void replay(deps, conn, id, sub, cursor.seq));
  }
  return { subscribed, refused, resync, after: () => followUps.forEach((f) => f()) };
}

/**
 * `subscribe`: subscribes every known session; a session with a cursor is
 * held (live frames buffered) from now, and replayed or told to resync once
 * the ack has gone out. Order on the wire: ack, replay (or resync_required), live.
 * The payload carries the keys web clients read (`accepted`, `not_found`, `resync_required`).
 */
export function subscribe(deps: SubscribeDeps, conn: WsConnection, p: SubscribePayload): Outcome {
  const { subscribed, refused, resync, after } = subscribeSessions(deps, conn, p.session_ids, p.cursors, p.agent_filter);
  const payload = { subscribed, accepted: subscribed, not_found: refused.not_found, resync_required: resync };
  if (refused.not_found.length) {
    return { code: Codes.SESSION_NOT_FOUND, msg: `session not found: ${refused.not_found.join(', ')}`, payload, details: compact(refused), after };
  }
  if (refused.held_by_other_instance.length) {
    return { code: Codes.SESSION_BUSY, msg: 'session is held by another svc-code instance on this home; use that instance', payload, details: compact(refused), after };
  }
  return ok(payload, after);
}

/**
 * `client_hello` with `subscriptions` and `cursors` (spec/clients.md E12: "subscribes the subscriptions + cursors
 * it carries"): every session named in either is subscribed as `subscribe` does; the ack is code 0 whatever the
 * sessions, naming `accepted_subscriptions`, `resync_required` and `not_found`.
 */
export function clientHello(deps: SubscribeDeps, conn: WsConnection, p: { subscriptions?: string[] | undefined; cursors?: Record<string, LooseCursor> | undefined; agent_filter?: string[] | null | undefined }): Outcome {
  conn.hasClientHello = true;
  const { subscribed, refused, resync, after } = subscribeSessions(deps, conn, [...(p.subscriptions ?? []), ...Object.keys(p.cursors ?? {})], p.cursors, p.agent_filter);
  const notFound = [...refused.not_found, ...refused.held_by_other_instance.map((d) => (d as { session_id?: string })?.session_id).filter((x): x is string => !!x)];
  return ok({ ws_connection_id: conn.id, accepted_subscriptions: subscribed, resync_required: resync, not_found: notFound }, after);
}

function compact(r: Refused): Partial<Refused> {
  const out: Partial<Refused> = {};
  if (r.not_found.length) out.not_found = r.not_found;
  if (r.held_by_other_instance.length) out.held_by_other_instance = r.held_by_other_instance;
  return out;
}
