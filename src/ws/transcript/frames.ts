import * as v from 'valibot';
import { TurnRecord } from '../../../protocol/schemas/transcript.ts';

/** Server frames of the transcript channel (`subscribe_v2`, docs/websocket.md "Transcript channel"). */

const Timestamp = v.pipe(v.string(), v.description('ISO 8601'));

export const TranscriptOp = v.pipe(
  v.object({
    type: v.pipe(v.string(), v.description('the event type')),
    payload: v.pipe(v.unknown(), v.description('the event payload, as journaled (durable) or as streamed (deltas)')),
    offset: v.optional(v.pipe(v.number(), v.description('deltas only: cumulative character offset within the turn'))),
  }),
  v.title('TranscriptOp'),
);

export const TranscriptResetFrame = v.pipe(
  v.object({
    type: v.literal('transcript.reset'),
    session_id: v.string(),
    timestamp: Timestamp,
    payload: v.object({
      agent_id: v.string(),
      seq: v.pipe(v.number(), v.description('session journal seq the snapshot is folded up to; the agent\'s next ops batch has a higher seq; the `transcript_since` to resume from')),
      turns: v.pipe(v.array(TurnRecord), v.description('the newest page of the agent\'s turns, oldest first (as GET /transcript `items`); older pages over REST with `before_turn`')),
      has_more: v.pipe(v.boolean(), v.description('older turns exist')),
    }),
  }),
  v.title('TranscriptReset'),
  v.description('Baseline of one agent: the client drops what it held for the agent and starts again from this snapshot.'),
);

export const TranscriptOpsFrame = v.pipe(
  v.object({
    type: v.literal('transcript.ops'),
    session_id: v.string(),
    timestamp: Timestamp,
    payload: v.object({
      agent_id: v.string(),
      seq: v.pipe(v.number(), v.description(
        'durable batches: the session journal seq of the event, strictly increasing per agent (the cursor for `transcript_since`); ' +
          'volatile batches: the session head seq when sent, not advancing the cursor',
      )),
      volatile: v.optional(v.pipe(v.literal(true), v.description('grade `delta` only: a streamed delta, never journaled nor replayed'))),
      ops: v.array(TranscriptOp),
    }),
  }),
  v.title('TranscriptOps'),
  v.description('Incremental batch of one agent: one durable event (grade-filtered) or one streamed delta.'),
);

export function resetFrame(f: { sessionId: string; agentId: string; seq: number; turns: unknown[]; hasMore: boolean; now: Date }): string {
  const payload = { agent_id: f.agentId, seq: f.seq, turns: f.turns, has_more: f.hasMore };
  return JSON.stringify({ type: 'transcript.reset', session_id: f.sessionId, timestamp: f.now.toISOString(), payload });
}

export function opsFrame(f: { sessionId: string; agentId: string; seq: number; volatile: boolean; ops: unknown[]; ts: string }): string {
  const payload: Record<string, unknown> = { agent_id: f.agentId, seq: f.seq };
  if (f.volatile) payload.volatile = true;
  payload.ops = f.ops;
  return JSON.stringify({ type: 'transcript.ops', session_id: f.sessionId, timestamp: f.ts, payload });
}
