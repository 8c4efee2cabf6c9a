import * as v from 'valibot';
import type { EventType, PayloadOf } from '../events/registry.ts';
import {
  AttachmentRecordB, InteractionRecordB, PromptRecordB, TaskRecordB, TodoRecordB, TranscriptItem, TranscriptMeta, TranscriptOpRecord,
} from '../schemas/transcript-records.ts';

/**
 * The frames the server sends on `/api/v1/ws` (Core "Connection and frames"; spec/clients.md A, C): their schemas
 * (for /asyncapi.json, the contract tests) and the types clients read, the web UI included (web/src/api.ts). The
 * builders that write them are in src/ws/server-frames.ts, src/ws/transcript/frames.ts (the reset) and
 * projections/transcript/live/op-log.ts (`opsFrame`).
 */

export const PROTOCOL_VERSION = 2;
/** Durable events a cursor may lag behind the head and still be replayed. */
export const MAX_EVENT_BUFFER_SIZE = 1000;

const Timestamp = v.pipe(v.string(), v.description('ISO 8601'));

export const ServerHelloFrame = v.pipe(
  v.object({
    type: v.literal('server_hello'),
    timestamp: Timestamp,
    payload: v.object({
      ws_connection_id: v.string(),
      protocol_version: v.literal(PROTOCOL_VERSION),
      max_event_buffer_size: v.literal(MAX_EVENT_BUFFER_SIZE),
      capabilities: v.object({ event_batching: v.literal(false), compression: v.literal(false) }),
    }),
  }),
  v.title('ServerHello'),
  v.description('First frame of every connection.'),
);

export const AckFrame = v.pipe(
  v.object({
    type: v.literal('ack'),
    id: v.nullable(v.union([v.string(), v.number()])),
    code: v.pipe(v.number(), v.description('0 = success; otherwise a business code (40001, 40401, 40901)')),
    msg: v.string(),
    payload: v.unknown(),
    details: v.optional(v.unknown()),
  }),
  v.title('Ack'),
  v.description('Answer to one client frame; `id` echoes the frame id (null when absent or unparsable); `details` only on errors.'),
);
export type AckFrame = v.InferOutput<typeof AckFrame>;

export const EventFrame = v.pipe(
  v.object({
    type: v.pipe(v.string(), v.description('the event type')),
    seq: v.pipe(v.number(), v.description('strictly increasing per stream (per session; the global stream has its own)')),
    epoch: v.pipe(v.string(), v.description('stream epoch; a cursor is only valid within one epoch')),
    session_id: v.pipe(v.string(), v.description('the session, or `__global__` for global events')),
    timestamp: Timestamp,
    payload: v.unknown(),
  }),
  v.title('DurableEvent'),
  v.description('A journaled event: replayable with a cursor `{seq, epoch}`.'),
);

export const VolatileFrame = v.pipe(
  v.object({
    type: v.string(),
    seq: v.pipe(v.number(), v.description('head seq of the session stream when sent (the last durable event before it)')),
    volatile: v.literal(true),
    offset: v.optional(v.pipe(v.number(), v.description('cumulative character offset within the turn (text streams)'))),
    session_id: v.string(),
    timestamp: Timestamp,
    payload: v.unknown(),
  }),
  v.title('VolatileEvent'),
  v.description('Never journaled, never replayed (`*.delta`, `tool.progress`, `shell.*`).'),
);

export const ResyncReason = v.picklist(['too_far_behind', 'epoch_mismatch', 'invalid_cursor']);
export type ResyncReason = v.InferOutput<typeof ResyncReason>;

export const ResyncRequiredFrame = v.pipe(
  v.object({
    type: v.literal('resync_required'),
    session_id: v.string(),
    timestamp: Timestamp,
    payload: v.object({
      session_id: v.string(),
      reason: ResyncReason,
      head_seq: v.pipe(v.number(), v.description('current head seq of the session stream')),
      current_seq: v.pipe(v.number(), v.description('the same as `head_seq`, named as web clients read it (spec/clients.md E9)')),
      epoch: v.nullable(v.string()),
      max_event_buffer_size: v.literal(MAX_EVENT_BUFFER_SIZE),
    }),
  }),
  v.title('ResyncRequired'),
  v.description(
    'The cursor cannot be replayed: more than 1000 events behind, another epoch, or past the head. The session is still subscribed for live ' +
      'events; the client reloads GET /api/v1/sessions/{session_id}/snapshot and subscribes again with the fresh cursor.',
  ),
);

export const TerminalOutputFrame = v.pipe(
  v.object({
    type: v.literal('terminal_output'),
    session_id: v.string(),
    terminal_id: v.pipe(v.string(), v.description('the same as `payload.terminal_id` (web clients read the envelope)')),
    seq: v.pipe(v.number(), v.description('`offset + data.length`: the output offset just past this frame, strictly increasing per terminal; give it back as `since_seq` (or `since`) on re-attach')),
    timestamp: Timestamp,
    payload: v.object({
      terminal_id: v.string(),
      offset: v.pipe(v.number(), v.description('offset of the first character of `data` in the terminal output stream (UTF-16 code units since the terminal started)')),
      data: v.pipe(v.string(), v.description('PTY output, decoded as UTF-8')),
      replay: v.optional(v.pipe(v.literal(true), v.description('scrollback sent on terminal_attach; absent on live output'))),
    }),
  }),
  v.title('TerminalOutput'),
  v.description(
    'Output of a terminal, to connections attached to it only. Volatile: never journaled. `offset + data.length` is the `since` to give on re-attach; ' +
      'an `offset` above what the client holds means the scrollback no longer had the gap.',
  ),
);

export const TerminalExitFrame = v.pipe(
  v.object({
    type: v.literal('terminal_exit'),
    session_id: v.string(),
    terminal_id: v.pipe(v.string(), v.description('the same as `payload.terminal_id`')),
    timestamp: Timestamp,
    payload: v.object({
      terminal_id: v.string(),
      exit_code: v.pipe(v.nullable(v.number()), v.description('null when ended by a signal')),
      exited_at: Timestamp,
    }),
  }),
  v.title('TerminalExit'),
  v.description('The terminal process ended (after its last terminal_output); also sent on terminal_attach to an exited terminal, after the replay.'),
);

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

export type ServerHelloFrame = v.InferOutput<typeof ServerHelloFrame>;
export type ResyncRequiredFrame = v.InferOutput<typeof ResyncRequiredFrame>;
export type TerminalOutputFrame = v.InferOutput<typeof TerminalOutputFrame>;
export type TerminalExitFrame = v.InferOutput<typeof TerminalExitFrame>;
export type TranscriptSnapshot = v.InferOutput<typeof TranscriptSnapshot>;
export type TranscriptResetFrame = v.InferOutput<typeof TranscriptResetFrame>;
export type TranscriptOpsFrame = v.InferOutput<typeof TranscriptOpsFrame>;

/**
 * An event's frame, durable or volatile, as a client reads it: its `type` (a name from the event registry) picks
 * the payload's type (the registry's schema; the wire adds the superset keys of protocol/events/wire.ts).
 */
export type EventFrameOf<T extends EventType> = T extends EventType
  ? { type: T; seq: number; session_id: string; timestamp: string; epoch?: string; volatile?: true; offset?: number; payload: PayloadOf<T> }
  : never;
export type AnyEventFrame = EventFrameOf<EventType>;

/** Every frame the server sends, told apart by `type`. */
export type ServerFrame =
  | AnyEventFrame | ServerHelloFrame | AckFrame | ResyncRequiredFrame | TerminalOutputFrame | TerminalExitFrame | TranscriptResetFrame | TranscriptOpsFrame;
