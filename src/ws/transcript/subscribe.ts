import type { Journal } from '../../../journal/journal.ts';
import { readOps } from '../../../projections/transcript/ops.ts';
import type { TranscriptProjection } from '../../../projections/transcript/projection.ts';
import type { TranscriptState } from '../../../projections/transcript/state.ts';
import { agentOf, turnPage } from '../../../projections/transcript/views.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';
import type { Logger } from '../../app/logger.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../../sessions/lookup.ts';
import type { WsConnection } from '../connection.ts';
import type { SubscribeV2Payload, UnsubscribeV2Payload } from '../frames.ts';
import { errorOutcome, ok, type Outcome } from '../outcome.ts';
import { opsFrame, resetFrame } from './frames.ts';
import { carries, gradeOf, type Grade, type TranscriptSub } from './state.ts';

/** What the transcript channel reads. */
/** What the transcript channel reads; the session lookup answers 40401, or 40901 for a session another daemon holds. */
export interface TranscriptChannelDeps extends OwnedSessionLookup {
  /** The op window (catch-up batches). */
  journal: Journal;
  /** The baselines: the folded transcripts. */
  transcripts: TranscriptProjection;
  clock: { now(): Date };
  log: Logger;
  /** Whether the session's runtime is in memory (only then do ops reach back). */
  engine: Pick<EngineRegistry, 'get'>;
}

/**
 * `subscribe_v2`: the channel is set in hold mode at once (live ops of the session are queued), the ack
 * goes out, then each graded agent gets its baseline and the held ops newer than it are released.
 * Same no-gap argument as a cursor replay (docs/websocket.md "Replay and resync").
 */
export function subscribeV2(deps: TranscriptChannelDeps, conn: WsConnection, p: SubscribeV2Payload): Outcome {
  try {
    findOwnedSession(deps, p.session_id);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const details = err.code === Codes.SESSION_NOT_FOUND ? { not_found: [p.session_id] } : { held_by_other_instance: [err.details] };
    return errorOutcome(err, deps.log, { session_id: p.session_id }, details);
  }
  const grades = new Map(Object.entries(p.transcript).filter(([k]) => k !== '*') as Array<[string, Grade]>);
  const sub: TranscriptSub = { grades, fallback: p.transcript['*'] ?? 'off', held: [] };
  conn.subscribeTranscript(p.session_id, sub);
  const after = () => void baseline(deps, conn, p, sub);
  // The keys web clients read (spec/clients.md E13); an unknown session was refused above (40401).
  return ok({ session_id: p.session_id, transcript: p.transcript, accepted: [p.session_id], not_found: [], resync_required: [] }, after);
}

export function unsubscribeV2(conn: WsConnection, p: UnsubscribeV2Payload): Outcome {
  const sub = conn.transcripts.get(p.session_id);
  if (!p.agent_ids) conn.unsubscribeTranscript(p.session_id);
  else if (sub) for (const id of p.agent_ids) sub.grades.set(id, 'off');
  return ok({ session_id: p.session_id, agent_ids: p.agent_ids ?? null });
}

/** The agents a channel grades (its keys, and the roster when `*` is not off) and the newest page of each, at one seq. */
function snapshotOf(sub: TranscriptSub) {
  return (state: TranscriptState, seq: number) => {
    const agents = [...new Set([...sub.grades.keys(), ...(sub.fallback !== 'off' ? state.roster.keys() : [])])];
    const pages = new Map(agents.filter((id) => gradeOf(sub, id) !== 'off').map((id) => [id, turnPage(agentOf(state, id), {})!]));
    return { seq, agents, pages };
  };
}

async function baseline(deps: TranscriptChannelDeps, conn: WsConnection, p: SubscribeV2Payload, sub: TranscriptSub): Promise<void> {
  const sid = p.session_id;
  const current = () => conn.open && conn.transcripts.get(sid) === sub;
  const baselines = new Map<string, number>();
  // Read once, when first needed; `seq` = the last event in it (events after it are held live ops).
  let snapshot: Promise<ReturnType<ReturnType<typeof snapshotOf>>> | undefined;
  const read = () => (snapshot ??= deps.transcripts.read(sid, snapshotOf(sub)));
  try {
    const first = sub.fallback !== 'off' ? await read() : undefined;
    const agents = new Set([...sub.grades.keys(), ...(first ? first.agents : [])]);
    for (const agentId of agents) {
      if (!current()) return;
      const grade = gradeOf(sub, agentId);
      if (grade === 'off') continue;
      const since = p.transcript_since?.[agentId];
      if (since !== undefined && (await catchUp(deps, conn, sid, agentId, grade, since, baselines))) continue;
      const { seq, pages } = await read();
      if (!current()) return;
      const page = pages.get(agentId) ?? { items: [], has_more: false };
      conn.send(resetFrame({ sessionId: sid, agentId, seq, turns: page.items, hasMore: page.has_more, now: deps.clock.now() }));
      baselines.set(agentId, seq);
      await conn.drained();
    }
  } catch (err) {
    // Releasing live ops after a failed read would leave a silent gap; closing makes the client resubscribe.
    deps.log.error({ err, session_id: sid, ws_connection_id: conn.id }, 'ws transcript baseline failed');
    conn.fail(1011, 'transcript baseline failed: reconnect');
    return;
  }
  conn.releaseOps(sid, sub, baselines);
}

/** Sends the agent's missed batches when the op window still covers `since`; false = a reset is needed. */
async function catchUp(
  deps: TranscriptChannelDeps, conn: WsConnection, sid: string, agentId: string, grade: Grade, since: number, baselines: Map<string, number>,
): Promise<boolean> {
  const r = await readOps(deps.journal, sid, agentId, since, deps.engine.get(sid) !== undefined);
  if (!r.complete || since > r.latest_seq) return false;
  let last = since;
  for (const b of r.batches) {
    last = b.seq;
    const ops = b.ops.filter((op) => carries(grade, op.type, false));
    if (!ops.length) continue;
    conn.send(opsFrame({ sessionId: sid, agentId, seq: b.seq, volatile: false, ops, ts: deps.clock.now().toISOString() }));
    await conn.drained();
  }
  baselines.set(agentId, last);
  return true;
}
