import type { AppContext } from '../app/context.ts';
import { Codes } from '../protocol/codes.ts';
import { ApiError } from '../protocol/errors.ts';
import { findOwnedSession } from '../sessions/lookup.ts';
import { foldTranscript, readOps } from '../transcript/read.ts';
import type { TranscriptState } from '../transcript/state.ts';
import { agentOf, turnPage } from '../transcript/views.ts';
import type { WsConnection } from './connection.ts';
import type { SubscribeV2Payload, UnsubscribeV2Payload } from './frames.ts';
import { errorOutcome, ok, type Outcome } from './outcome.ts';
import { opsFrame, resetFrame } from './transcript-frames.ts';
import { carries, gradeOf, type Grade, type TranscriptSub } from './transcript-sub.ts';


/**
 * `subscribe_v2`: the channel is set in hold mode at once (live ops of the session are queued), the ack
 * goes out, then each graded agent gets its baseline and the held ops newer than it are released.
 * Same no-gap argument as a cursor replay (docs/websocket.md "Replay and resync").
 */
export function subscribeV2(app: AppContext, conn: WsConnection, p: SubscribeV2Payload): Outcome {
  try {
    findOwnedSession(app, p.session_id);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const details = err.code === Codes.SESSION_NOT_FOUND ? { not_found: [p.session_id] } : { held_by_other_instance: [err.details] };
    return errorOutcome(err, app.log, { session_id: p.session_id }, details);
  }
  const grades = new Map(Object.entries(p.transcript).filter(([k]) => k !== '*') as Array<[string, Grade]>);
  const sub: TranscriptSub = { grades, fallback: p.transcript['*'] ?? 'off', held: [] };
  conn.subscribeTranscript(p.session_id, sub);
  const after = () => void baseline(app, conn, p, sub);
  return ok({ session_id: p.session_id, transcript: p.transcript }, after);
}

export function unsubscribeV2(conn: WsConnection, p: UnsubscribeV2Payload): Outcome {
  const sub = conn.transcripts.get(p.session_id);
  if (!p.agent_ids) conn.unsubscribeTranscript(p.session_id);
  else if (sub) for (const id of p.agent_ids) sub.grades.set(id, 'off');
  return ok({ session_id: p.session_id, agent_ids: p.agent_ids ?? null });
}

/** Folds the whole stream once; `seq` = the last event folded (events after it are held live ops). */
const fold = (app: AppContext, sessionId: string) => foldTranscript(app.journal, sessionId);

async function baseline(app: AppContext, conn: WsConnection, p: SubscribeV2Payload, sub: TranscriptSub): Promise<void> {
  const sid = p.session_id;
  const current = () => conn.open && conn.transcripts.get(sid) === sub;
  const baselines = new Map<string, number>();
  let folded: Promise<{ state: TranscriptState; seq: number }> | undefined;
  try {
    const first = await (sub.fallback !== 'off' ? (folded = fold(app, sid)) : undefined);
    const agents = new Set([...sub.grades.keys(), ...(first ? first.state.roster.keys() : [])]);
    for (const agentId of agents) {
      if (!current()) return;
      const grade = gradeOf(sub, agentId);
      if (grade === 'off') continue;
      const since = p.transcript_since?.[agentId];
      if (since !== undefined && (await catchUp(app, conn, sid, agentId, grade, since, baselines))) continue;
      const { state, seq } = await (folded ??= fold(app, sid));
      if (!current()) return;
      const page = turnPage(agentOf(state, agentId), {})!;
      conn.send(resetFrame({ sessionId: sid, agentId, seq, turns: page.items, hasMore: page.has_more, now: app.clock.now() }));
      baselines.set(agentId, seq);
      await conn.drained();
    }
  } catch (err) {
    // Releasing live ops after a failed read would leave a silent gap; closing makes the client resubscribe.
    app.log.error({ err, session_id: sid, ws_connection_id: conn.id }, 'ws transcript baseline failed');
    conn.fail(1011, 'transcript baseline failed: reconnect');
    return;
  }
  conn.releaseOps(sid, sub, baselines);
}

/** Sends the agent's missed batches when the op window still covers `since`; false = a reset is needed. */
async function catchUp(
  app: AppContext, conn: WsConnection, sid: string, agentId: string, grade: Grade, since: number, baselines: Map<string, number>,
): Promise<boolean> {
  const r = await readOps(app, sid, agentId, since);
  if (!r.complete || since > r.latest_seq) return false;
  let last = since;
  for (const b of r.batches) {
    last = b.seq;
    const ops = b.ops.filter((op) => carries(grade, op.type, false));
    if (!ops.length) continue;
    conn.send(opsFrame({ sessionId: sid, agentId, seq: b.seq, volatile: false, ops, ts: app.clock.now().toISOString() }));
    await conn.drained();
  }
  baselines.set(agentId, last);
  return true;
}
