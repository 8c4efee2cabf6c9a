import * as v from 'valibot';
import { AgentId, Id, LIMITS, SafeUint, boundedArray, maxString, objectOnly } from '../../protocol/schemas/common.ts';
import { TerminalDimension, TerminalStatus } from '../../protocol/schemas/terminals.ts';

/**
 * Client request frames of `/api/v1/ws` (Core "Connection and frames"); every value bounded as on REST. The hub
 * validates with these schemas (src/ws/client-frames.ts); web/ types every frame it sends from `ClientFramePayload`,
 * so a renamed field breaks the web build.
 */

const SessionId = Id;

/** The keys web clients read in subscribe acks (spec/clients.md A2, E12, E13). */
const ClientAckKeys = {
  accepted: v.pipe(v.array(v.string()), v.description('sessions now subscribed (the same as `subscribed`)')),
  not_found: v.pipe(v.array(v.string()), v.description('unknown session ids (the ack code is then 40401)')),
  resync_required: v.pipe(v.array(v.string()), v.description('sessions whose cursor cannot be replayed: a resync_required frame follows the ack for each')),
};

/** Envelope of every client frame; `payload` is checked per `type`. */
export const ClientFrame = v.pipe(
  v.object({
    type: Id,
    id: v.optional(v.nullable(v.union([maxString(LIMITS.idChars), v.pipe(v.number(), v.finite('must be a finite number'))]))),
    payload: v.optional(v.unknown()),
  }),
  v.title('ClientFrame'),
  v.description('Every client frame; answered by exactly one `ack` echoing `id` (null when absent).'),
);
export type ClientFrame = v.InferOutput<typeof ClientFrame>;

/** A per-session resume point: the last applied durable event. */
export const Cursor = v.pipe(
  v.object({
    seq: SafeUint,
    epoch: Id,
  }),
  v.description('Last applied durable event of the session: its `seq` and the stream `epoch`.'),
);

/** Agent ids whose events pass (Core "Events": session events are subject to it); null = no filter. */
const AgentFilter = v.nullable(v.pipe(boundedArray(AgentId, 1000), v.description('agent ids (`main` for the main agent); null or absent = every agent')));

export const SubscribePayload = v.pipe(
  v.object({
    session_ids: v.pipe(v.array(SessionId), v.maxLength(1000, 'at most 1000 session ids')),
    cursors: v.optional(v.pipe(objectOnly(v.record(SessionId, Cursor)), v.maxEntries(1000, 'at most 1000 cursors'))),
    agent_filter: v.optional(AgentFilter),
  }),
  v.title('SubscribePayload'),
  v.description(
    'Subscribes to session events. `cursors` replays durable events after each cursor (or sends `resync_required`). ' +
      '`agent_filter` (agent ids) keeps only events whose payload has no `agent_id` or one in the list; it applies to the sessions of this frame.',
  ),
);
export type SubscribePayload = v.InferOutput<typeof SubscribePayload>;

export const UnsubscribePayload = v.pipe(
  v.object({ session_ids: v.pipe(v.array(SessionId), v.maxLength(1000, 'at most 1000 session ids')) }),
  v.title('UnsubscribePayload'),
);

export const ClientHelloPayload = v.pipe(
  v.looseObject({
    client_id: Id,
    // Fields of web clients (spec/clients.md A3, E12): the sessions named in subscriptions and cursors are
    // subscribed (a cursor replays from its seq); checked like subscribe's.
    subscriptions: v.optional(v.pipe(v.array(SessionId), v.maxLength(1000, 'at most 1000 session ids'))),
    cursors: v.optional(v.pipe(objectOnly(v.record(SessionId, v.looseObject({ seq: SafeUint, epoch: v.optional(Id) }))), v.maxEntries(1000, 'at most 1000 cursors'))),
    agent_filter: v.optional(AgentFilter),
  }),
  v.title('ClientHelloPayload'),
  v.description(
    'Handshake. `subscriptions` and the sessions of `cursors` (with `agent_filter`) are subscribed as a `subscribe` does, which is how web clients re-subscribe after a reconnect ' +
      '(spec/clients.md E12): a cursor without `epoch` is taken in the current epoch. The ack (code 0) names `accepted_subscriptions`, `resync_required` and `not_found`.',
  ),
);

const Grade = v.pipe(
  v.picklist(['off', 'turn', 'block', 'delta']),
  v.description('off: nothing; turn: turn.started / turn.ended, subagent.* and interactions (event.approval.*, event.question.*); ' +
    'block: every durable event of the agent; delta: block plus its streamed assistant.delta / thinking.delta / tool.call.delta'),
);
/** An agent id, or `*` (the default grade: every agent of the roster and agents spawned later). */
const TranscriptKey = v.pipe(v.string(), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`), v.regex(/^(\*|[A-Za-z0-9._-]+)$/, 'must be an agent id or *'));

export const SubscribeV2Payload = v.pipe(
  v.object({
    session_id: SessionId,
    transcript: v.pipe(objectOnly(v.record(TranscriptKey, Grade)), v.maxEntries(1000, 'at most 1000 agents')),
    transcript_since: v.optional(v.pipe(
      objectOnly(v.record(AgentId, SafeUint)),
      v.maxEntries(1000, 'at most 1000 agents'),
      v.description('per agent: the `seq` of the last applied transcript.reset / durable transcript.ops batch; resumes with the missed batches when the op window still holds them, else a transcript.reset'),
    )),
  }),
  v.title('SubscribeV2Payload'),
  v.description(
    'Transcript channel of one session: every agent with a non-off grade gets a baseline (transcript.reset, or the missed transcript.ops when resuming ' +
      'with transcript_since) after the ack, then live transcript.ops; its legacy session events are no longer sent on this connection. ' +
      'A new subscribe_v2 for the session replaces the previous grades and re-baselines.',
  ),
);
export type SubscribeV2Payload = v.InferOutput<typeof SubscribeV2Payload>;

export const UnsubscribeV2Payload = v.pipe(
  v.object({ session_id: SessionId, agent_ids: v.optional(boundedArray(AgentId, 1000)) }),
  v.title('UnsubscribeV2Payload'),
  v.description('Detaches the listed agents (their grade becomes off: legacy events flow again) or, without agent_ids, the whole session.'),
);
export type UnsubscribeV2Payload = v.InferOutput<typeof UnsubscribeV2Payload>;

export const SubscribeV2AckPayload = v.pipe(
  v.object({ session_id: v.string(), transcript: v.record(v.string(), v.string()), ...ClientAckKeys }),
  v.title('SubscribeV2AckPayload'),
);

export const UnsubscribeV2AckPayload = v.pipe(
  v.object({ session_id: v.string(), agent_ids: v.nullable(v.array(v.string())) }),
  v.title('UnsubscribeV2AckPayload'),
  v.description('`agent_ids` null = the whole session was detached.'),
);

const TerminalId = Id;
/** Terminal input per frame (a paste): 1 MiB characters, as the frame itself. */
const TERMINAL_INPUT_CHARS = LIMITS.textChars;

/** Web clients name the terminal's session on every terminal frame (spec/clients.md A3): checked when given. */
const TerminalSession = v.optional(v.pipe(SessionId, v.description('the terminal\'s session; when given, a terminal of another session is 40414')));

export const TerminalAttachPayload = v.pipe(
  v.object({
    session_id: TerminalSession,
    terminal_id: TerminalId,
    since: v.optional(v.pipe(SafeUint,
      v.description('output offset already held by the client (offset + data.length of its last terminal_output); omitted = replay all the scrollback'))),
    since_seq: v.optional(v.pipe(SafeUint, v.description('the same as `since`, named as web clients send it: the envelope `seq` of the last terminal_output held; `since` wins when both are given'))),
  }),
  v.title('TerminalAttachPayload'),
  v.description('Starts streaming a terminal\'s output to this connection: after the ack, the scrollback from `since` as terminal_output frames with `replay: true`, then live output.'),
);
export type TerminalAttachPayload = v.InferOutput<typeof TerminalAttachPayload>;

export const TerminalDetachPayload = v.pipe(v.object({ session_id: TerminalSession, terminal_id: TerminalId }), v.title('TerminalDetachPayload'));

export const TerminalClosePayload = v.pipe(
  v.object({ session_id: TerminalSession, terminal_id: TerminalId }),
  v.title('TerminalClosePayload'),
  v.description('Kills the terminal as POST …/terminals/{terminal_id}:close does; the ack comes at once, terminal_exit once the process is gone.'),
);
export type TerminalClosePayload = v.InferOutput<typeof TerminalClosePayload>;
export type TerminalDetachPayload = v.InferOutput<typeof TerminalDetachPayload>;

export const TerminalInputPayload = v.pipe(
  v.object({ session_id: TerminalSession, terminal_id: TerminalId, data: v.pipe(maxString(TERMINAL_INPUT_CHARS), v.description('written to the PTY as is (keys, pasted text, control characters such as \\r or \\u0003)')) }),
  v.title('TerminalInputPayload'),
);
export type TerminalInputPayload = v.InferOutput<typeof TerminalInputPayload>;

export const TerminalResizePayload = v.pipe(
  v.object({ session_id: TerminalSession, terminal_id: TerminalId, cols: TerminalDimension, rows: TerminalDimension }),
  v.title('TerminalResizePayload'),
);
export type TerminalResizePayload = v.InferOutput<typeof TerminalResizePayload>;

/** Client frame types and their payload schemas. */
export const ClientPayloads = {
  subscribe: SubscribePayload,
  unsubscribe: UnsubscribePayload,
  client_hello: ClientHelloPayload,
  subscribe_v2: SubscribeV2Payload,
  unsubscribe_v2: UnsubscribeV2Payload,
  terminal_attach: TerminalAttachPayload,
  terminal_detach: TerminalDetachPayload,
  terminal_input: TerminalInputPayload,
  terminal_resize: TerminalResizePayload,
  terminal_close: TerminalClosePayload,
} as const;
export type ClientFrameType = keyof typeof ClientPayloads;
/** What a client may send as a frame's payload, by type (the schemas' input: what they accept before defaults). */
export type ClientFramePayload = { [K in ClientFrameType]: v.InferInput<(typeof ClientPayloads)[K]> };

export const SubscribeAckPayload = v.pipe(
  v.object({ subscribed: v.array(v.string()), ...ClientAckKeys }),
  v.title('SubscribeAckPayload'),
  v.description('Sessions now subscribed. Unknown ids (40401) or ids held by another instance (40901) are left out and named in `details`.'),
);

export const UnsubscribeAckPayload = v.pipe(v.object({ unsubscribed: v.array(v.string()) }), v.title('UnsubscribeAckPayload'));

export const ClientHelloAckPayload = v.pipe(
  v.object({
    ws_connection_id: v.string(),
    accepted_subscriptions: v.pipe(v.array(v.string()), v.description('sessions of `subscriptions` now subscribed')),
    resync_required: v.pipe(v.array(v.string()), v.description('sessions whose cursor cannot be replayed (a resync_required frame follows for each)')),
    not_found: v.pipe(v.array(v.string()), v.description('unknown session ids of `subscriptions` (or held by another instance); left out, the code stays 0')),
  }),
  v.title('ClientHelloAckPayload'),
);

export const TerminalAttachAckPayload = v.pipe(
  v.object({
    terminal_id: v.string(),
    status: TerminalStatus,
    replay_offset: v.pipe(v.number(), v.description('offset the replay starts at (above `since` when the scrollback lost part of the gap)')),
    end_offset: v.pipe(v.number(), v.description('offset just past the replay; live output continues from here')),
  }),
  v.title('TerminalAttachAckPayload'),
);

export const TerminalDetachAckPayload = v.pipe(v.object({ terminal_id: v.string(), detached: v.boolean() }), v.title('TerminalDetachAckPayload'));

export const TerminalInputAckPayload = v.pipe(v.object({ terminal_id: v.string() }), v.title('TerminalInputAckPayload'));

export const TerminalResizeAckPayload = v.pipe(v.object({ terminal_id: v.string(), cols: v.number(), rows: v.number() }), v.title('TerminalResizeAckPayload'));

export const TerminalCloseAckPayload = v.pipe(v.object({ terminal_id: v.string(), closing: v.boolean() }), v.title('TerminalCloseAckPayload'),
  v.description('`closing` false when the terminal had already exited.'));
