import * as v from 'valibot';
import { TranscriptItem, TranscriptOpRecord } from '../../../protocol/schemas/transcript-records.ts';
import {
  AttachmentRecordB, InteractionRecordB, PromptRecordB, TaskRecordB, TodoRecordB, TranscriptMeta,
} from '../../../protocol/schemas/transcript-records.ts';

/** Server frames of the transcript channel (`subscribe_v2`, docs/websocket.md "Transcript channel"; spec/clients.md A8, C). The ops frame's text is built by projections/transcript/live/op-log.ts opsFrame (the op journal keeps it). */

const Timestamp = v.pipe(v.string(), v.description('ISO 8601'));

export const TranscriptSnapshot = v.object({
  items: v.pipe(v.array(TranscriptItem), v.description('the newest page of GET /transcript items (20 turns), oldest first')),
  tasks: v.array(TaskRecordB), interactions: v.array(InteractionRecordB), attachments: v.array(AttachmentRecordB), todos: v.array(TodoRecordB),
  prompts: v.array(PromptRecordB), meta: TranscriptMeta, pending_interactions: v.array(v.string()), hasMoreOlder: v.boolean(),
});

export const TranscriptResetFrame = v.pipe(
  v.object({
    type: v.literal('transcript.reset'),
    session_id: v.string(),
    timestamp: Timestamp,
    payload: v.object({
      agent_id: v.string(),
      seq: v.pipe(v.number(), v.description('the agent\'s batch counter the snapshot is at: the next ops batch is seq + 1; the `transcript_since` to resume from')),
      snapshot: TranscriptSnapshot,
      has_more_older: v.pipe(v.boolean(), v.description('older turns exist (GET /transcript with before_turn)')),
      has_more: v.pipe(v.boolean(), v.description('same as has_more_older')),
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
      seq: v.pipe(v.number(), v.description('the agent\'s batch counter: exactly previous + 1 for every batch, delta batches included (grades below delta skip the seqs of batches they do not carry)')),
      volatile: v.optional(v.pipe(v.literal(true), v.description('a batch of streamed deltas (grade delta)'))),
      ops: v.array(TranscriptOpRecord),
    }),
  }),
  v.title('TranscriptOps'),
  v.description('Incremental batch of one agent: the ops of one durable event, or the merged deltas of one coalescing window (spec/clients.md C; docs/websocket.md).'),
);

export function resetFrame(f: { sessionId: string; agentId: string; seq: number; snapshot: unknown; hasMoreOlder: boolean; now: Date }): string {
  const payload = { agent_id: f.agentId, seq: f.seq, snapshot: f.snapshot, has_more_older: f.hasMoreOlder, has_more: f.hasMoreOlder };
  return JSON.stringify({ type: 'transcript.reset', session_id: f.sessionId, timestamp: f.now.toISOString(), payload });
}
