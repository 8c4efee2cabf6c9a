import * as v from 'valibot';
import type WebSocket from 'ws';
import type { AppContext } from '../app/context.ts';
import { LIMITS } from '../protocol/schemas/common.ts';
import { toFieldIssues } from '../protocol/validate.ts';
import type { WsConnection } from './connection.ts';
import { terminalAttach, terminalDetach, terminalInput, terminalResize } from '../terminals/ws.ts';
import {
  ClientFrame, ClientHelloPayload, ClientPayloads, SubscribePayload, TerminalAttachPayload, TerminalDetachPayload, TerminalInputPayload, TerminalResizePayload,
  SubscribeV2Payload, UnsubscribePayload, UnsubscribeV2Payload, type ClientFrameType,
} from './frames.ts';
import { ackFrame } from './server-frames.ts';
import { subscribe } from './subscribe.ts';
import { errorOutcome, invalid, ok, type Outcome } from './outcome.ts';
import { subscribeV2, transcriptChannelDeps, unsubscribeV2 } from './transcript-subscribe.ts';

type FrameId = string | number | null;

/** The frame's id as the ack echoes it; null when absent or not a valid id (an oversize string is not echoed back). */
function idOf(raw: unknown): FrameId {
  const id = raw && typeof raw === 'object' ? (raw as { id?: unknown }).id : undefined;
  if (typeof id === 'string') return id.length <= LIMITS.idChars ? id : null;
  return typeof id === 'number' && Number.isFinite(id) ? id : null;
}

function isClientFrameType(type: string): type is ClientFrameType {
  return Object.hasOwn(ClientPayloads, type);
}

/** Answers one client frame with exactly one ack, then runs its follow-up work (replays). */
export function handleClientMessage(app: AppContext, conn: WsConnection, data: WebSocket.RawData): void {
  let raw: unknown;
  let outcome: Outcome | undefined;
  try {
    raw = JSON.parse(String(data));
  } catch {
    raw = undefined;
    outcome = invalid('malformed frame: not JSON', [{ field: '(root)', message: 'not JSON' }]);
  }
  try {
    outcome ??= answer(app, conn, raw);
  } catch (err) {
    outcome = errorOutcome(err, app.log, { ws_connection_id: conn.id });
  }
  const { after, ...ack } = outcome;
  conn.send(ackFrame({ id: idOf(raw), ...ack }));
  after?.();
}

/** Validates a frame payload and runs `then` on it; 40001 listing each field otherwise. */
function withPayload<S extends v.GenericSchema>(schema: S, payload: unknown, then: (p: v.InferOutput<S>) => Outcome): Outcome {
  const parsed = v.safeParse(schema, payload ?? {}, { abortEarly: false });
  return parsed.success ? then(parsed.output) : invalid('invalid payload', toFieldIssues(parsed.issues, 'payload'));
}

function answer(app: AppContext, conn: WsConnection, raw: unknown): Outcome {
  const frame = v.safeParse(ClientFrame, raw, { abortEarly: false });
  if (!frame.success) return invalid('malformed frame', toFieldIssues(frame.issues));
  const { type, payload } = frame.output;
  if (!isClientFrameType(type)) return invalid(`unknown frame type: ${type}`, [{ field: 'type', message: `unknown frame type: ${type}` }]);
  switch (type) {
    case 'subscribe':
      return withPayload(SubscribePayload, payload, (p) => subscribe(app, conn, p));
    case 'unsubscribe':
      return withPayload(UnsubscribePayload, payload, ({ session_ids }) => {
        for (const id of session_ids) conn.unsubscribe(id);
        return ok({ unsubscribed: session_ids });
      });
    case 'client_hello':
      return withPayload(ClientHelloPayload, payload, () => {
        conn.hasClientHello = true;
        return ok({ ws_connection_id: conn.id });
      });
    case 'subscribe_v2':
      return withPayload(SubscribeV2Payload, payload, (p) => subscribeV2(transcriptChannelDeps(app), conn, p));
    case 'unsubscribe_v2':
      return withPayload(UnsubscribeV2Payload, payload, (p) => unsubscribeV2(conn, p));
    case 'terminal_attach':
      return withPayload(TerminalAttachPayload, payload, (p) => terminalAttach(app, conn, p));
    case 'terminal_detach':
      return withPayload(TerminalDetachPayload, payload, (p) => terminalDetach(app, conn, p));
    case 'terminal_input':
      return withPayload(TerminalInputPayload, payload, (p) => terminalInput(app, p));
    case 'terminal_resize':
      return withPayload(TerminalResizePayload, payload, (p) => terminalResize(app, p));
  }
}
