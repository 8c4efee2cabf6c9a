import * as v from 'valibot';
import type { JournalEvent } from '../../journal/types.ts';
import { eventDef } from '../../protocol/events/registry.ts';
import { wirePayload, type WireContext } from '../../protocol/events/wire.ts';

/** Server frames of `/api/v1/ws`: schemas (for /asyncapi.json and tests) and builders. */

export const PROTOCOL_VERSION = 2;
/** Durable events a cursor may lag behind the head and still be replayed. */
export const MAX_EVENT_BUFFER_SIZE = 1000;
/** `session_id` of global events. */
export const GLOBAL_SESSION_ID = '__global__';

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

export function serverHello(id: string, now: Date): string {
  return JSON.stringify({
    type: 'server_hello',
    timestamp: now.toISOString(),
    payload: {
      ws_connection_id: id,
      protocol_version: PROTOCOL_VERSION,
      max_event_buffer_size: MAX_EVENT_BUFFER_SIZE,
      capabilities: { event_batching: false, compression: false },
    },
  });
}

export function ackFrame(a: Omit<AckFrame, 'type'>): string {
  return JSON.stringify({ type: 'ack', ...a });
}

/** A durable event's frame; the payload with the client superset (protocol/events/wire.ts), `ctx` placing it in its agent's turns. */
export function durableFrame(e: JournalEvent, sessionId: string, ctx?: WireContext): string {
  const wire = sessionId === GLOBAL_SESSION_ID ? { time: Date.parse(e.ts) } : { sessionId, seq: e.seq, time: Date.parse(e.ts), ctx };
  const payload = wirePayload(eventDef(e.type), e.type, wire, e.payload);
  return JSON.stringify({ type: e.type, seq: e.seq, epoch: e.epoch, session_id: sessionId, timestamp: e.ts, payload });
}

export function volatileFrame(f: { type: string; seq: number; offset?: number; sessionId: string; now: Date; payload: unknown; ctx?: WireContext }): string {
  const frame: Record<string, unknown> = { type: f.type, seq: f.seq, volatile: true };
  if (f.offset !== undefined) frame.offset = f.offset;
  const wire = { sessionId: f.sessionId, time: f.now.getTime(), ctx: f.ctx };
  Object.assign(frame, { session_id: f.sessionId, timestamp: f.now.toISOString(), payload: wirePayload(eventDef(f.type), f.type, wire, f.payload) });
  return JSON.stringify(frame);
}

export function resyncFrame(sessionId: string, reason: ResyncReason, head: { seq: number; epoch: string } | undefined, now: Date): string {
  return JSON.stringify({
    type: 'resync_required',
    session_id: sessionId,
    timestamp: now.toISOString(),
    payload: { session_id: sessionId, reason, head_seq: head?.seq ?? 0, current_seq: head?.seq ?? 0, epoch: head?.epoch ?? null, max_event_buffer_size: MAX_EVENT_BUFFER_SIZE },
  });
}

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

export function terminalOutputFrame(f: { sessionId: string; terminalId: string; offset: number; data: string; replay: boolean; now: Date }): string {
  const payload: Record<string, unknown> = { terminal_id: f.terminalId, offset: f.offset, data: f.data };
  if (f.replay) payload.replay = true;
  return JSON.stringify({
    type: 'terminal_output', session_id: f.sessionId, terminal_id: f.terminalId, seq: f.offset + f.data.length, timestamp: f.now.toISOString(), payload,
  });
}

export function terminalExitFrame(f: { sessionId: string; terminalId: string; exitCode: number | null; exitedAt: string; now: Date }): string {
  const payload = { terminal_id: f.terminalId, exit_code: f.exitCode, exited_at: f.exitedAt };
  return JSON.stringify({ type: 'terminal_exit', session_id: f.sessionId, terminal_id: f.terminalId, timestamp: f.now.toISOString(), payload });
}
