import { pageReachesTrimmed } from '../../../projections/transcript/records-trim.ts';
import type { TranscriptState } from '../../../projections/transcript/state.ts';
import { resetSnapshot } from '../../../projections/transcript/records-view.ts';
import type { Logger } from '../../lib/logger.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../../sessions/lookup.ts';
import type { WsConnection } from '../connection.ts';
import type { SubscribeV2Payload, UnsubscribeV2Payload } from '../../../protocol/ws/client-frames.ts';
import { errorOutcome, ok, type Outcome } from '../outcome.ts';
import { resetFrame } from './frames.ts';
import type { LiveTranscripts } from '../../../projections/transcript/live/live-transcripts.ts';
import { carriesRank, gradeOf, type Grade, type TranscriptSub } from './state.ts';

/** What the transcript channel reads; the session lookup answers 40401, or 40901 for a session another daemon holds. */
export interface TranscriptChannelDeps extends OwnedSessionLookup {
  /** The live folds: baselines, the op journal and the batch counters. */
  liveTranscripts: LiveTranscripts;
  clock: { now(): Date };
  log: Logger;
}

/**
 * `subscribe_v2`: the channel is set in hold mode at once (live ops of the session are held), the ack goes
 * out, then the session's live fold is read and, in one synchronous step, each graded agent gets its baseline
 * (the batches after `transcript_since` when the op journal still has them, else a `transcript.reset`) and the
 * held ops are dropped: the baseline already covers them, and nothing can be applied between the two.
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

/** The agents a channel grades: its keys, and the roster when `*` is not off. */
function gradedAgents(sub: TranscriptSub, state: TranscriptState): string[] {
  const all = [...new Set([...sub.grades.keys(), ...(sub.fallback !== 'off' ? state.roster.keys() : [])])];
  return all.filter((id) => gradeOf(sub, id) !== 'off');
}

async function baseline(deps: TranscriptChannelDeps, conn: WsConnection, p: SubscribeV2Payload, sub: TranscriptSub): Promise<void> {
  const sid = p.session_id;
  const now = deps.clock.now();
  try {
    await deps.liveTranscripts.read(sid, (state, watermark, entry) => {
      if (!conn.open || conn.transcripts.get(sid) !== sub) return;
      for (const agentId of gradedAgents(sub, state)) {
        const grade = gradeOf(sub, agentId);
        const since = p.transcript_since?.[agentId];
        const r = since !== undefined ? deps.liveTranscripts.since(entry, agentId, since) : undefined;
        if (r?.complete) {
          for (const b of r.batches) if (carriesRank(grade, b.rank)) conn.send(b.text);
          continue;
        }
        const { snapshot, has_more_older } = resetSnapshot(state, agentId);
        conn.send(resetFrame({ sessionId: sid, agentId, seq: watermark(agentId), snapshot, hasMoreOlder: has_more_older, now }));
      }
      conn.releaseOps(sid, sub);
    }, (state) => gradedAgents(sub, state).some((id) => pageReachesTrimmed(state.rec.agents.get(id), {})));
  } catch (err) {
    // Releasing live ops after a failed read would leave a silent gap; closing makes the client resubscribe.
    deps.log.error({ err, session_id: sid, ws_connection_id: conn.id }, 'ws transcript baseline failed');
    conn.fail(1011, 'transcript baseline failed: reconnect');
  }
}
