import type { JournalEvent } from '../../journal/types.ts';
import { eventDef } from '../../protocol/events/registry.ts';
import { wirePayload, type WireContext } from '../../protocol/events/wire.ts';
import { MAX_EVENT_BUFFER_SIZE, PROTOCOL_VERSION, type AckFrame, type ResyncReason } from '../../protocol/ws/server-frames.ts';

/** Builders of the server frames of `/api/v1/ws`; their schemas and types are in protocol/ws/server-frames.ts. */

/** `session_id` of global events. */
export const GLOBAL_SESSION_ID = '__global__';

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
