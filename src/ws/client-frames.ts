import * as v from 'valibot';
import type WebSocket from 'ws';
import { LIMITS } from '../../protocol/schemas/common.ts';
import { toFieldIssues } from '../../protocol/validate.ts';
import type { WsConnection } from './connection.ts';
import { terminalAttach, terminalClose, terminalDetach, terminalInput, terminalResize, type TerminalFrameDeps } from '../terminals/ws.ts';
import {
  ClientFrame, ClientHelloPayload, ClientPayloads, SubscribePayload, TerminalAttachPayload, TerminalDetachPayload, TerminalInputPayload, TerminalResizePayload, TerminalClosePayload,
  SubscribeV2Payload, UnsubscribePayload, UnsubscribeV2Payload, type ClientFrameType,
} from '../../protocol/ws/client-frames.ts';
import { ackFrame } from './server-frames.ts';
import { clientHello, subscribe, type SubscribeDeps } from './subscribe.ts';
import { errorOutcome, invalid, ok, type Outcome } from './outcome.ts';
import { subscribeV2, unsubscribeV2 } from './transcript/subscribe.ts';

type FrameId = string | number | null;

/** What the client frames act on, the transcript channel's (`subscribe_v2`, src/ws/transcript/subscribe.ts) included. */
export type ClientFrameDeps = SubscribeDeps & TerminalFrameDeps & Parameters<typeof subscribeV2>[0];

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
export function handleClientMessage(deps: ClientFrameDeps, conn: WsConnection, data: WebSocket.RawData): void {
  let raw: unknown;
  let outcome: Outcome | undefined;
  try {
    raw = JSON.parse(String(data));
  } catch {
    raw = undefined;
    outcome = invalid('malformed frame: not JSON', [{ field: '(root)', message: 'not JSON' }]);
  }
  try {
    outcome ??= answer(deps, conn, raw);
  } catch (err) {
    outcome = errorOutcome(err, deps.log, { ws_connection_id: conn.id });
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

function answer(deps: ClientFrameDeps, conn: WsConnection, raw: unknown): Outcome {
  const frame = v.safeParse(ClientFrame, raw, { abortEarly: false });
  if (!frame.success) return invalid('malformed frame', toFieldIssues(frame.issues));
  const { type, payload } = frame.output;
  if (!isClientFrameType(type)) return invalid(`unknown frame type: ${type}`, [{ field: 'type', message: `unknown frame type: ${type}` }]);
  switch (type) {
    case 'subscribe':
      return withPayload(SubscribePayload, payload, (p) => subscribe(deps, conn, p));
    case 'unsubscribe':
      return withPayload(UnsubscribePayload, payload, ({ session_ids }) => {
        for (const id of session_ids) conn.unsubscribe(id);
        return ok({ unsubscribed: session_ids });
      });
    case 'client_hello':
      return withPayload(ClientHelloPayload, payload, (p) => clientHello(deps, conn, p));
    case 'subscribe_v2':
      return withPayload(SubscribeV2Payload, payload, (p) => subscribeV2(deps, conn, p));
    case 'unsubscribe_v2':
      return withPayload(UnsubscribeV2Payload, payload, (p) => unsubscribeV2(conn, p));
    case 'terminal_attach':
      return withPayload(TerminalAttachPayload, payload, (p) => terminalAttach(deps, conn, p));
    case 'terminal_detach':
      return withPayload(TerminalDetachPayload, payload, (p) => terminalDetach(deps, conn, p));
    case 'terminal_input':
      return withPayload(TerminalInputPayload, payload, (p) => terminalInput(deps, p));
    case 'terminal_resize':
      return withPayload(TerminalResizePayload, payload, (p) => terminalResize(deps, p));
    case 'terminal_close':
      return withPayload(TerminalClosePayload, payload, (p) => terminalClose(deps, p));
  }
}
