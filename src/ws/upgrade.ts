import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Codes, type Code } from '../../protocol/codes.ts';
import { BEARER_SUBPROTOCOL_PREFIX, bearerFrom, tokenMatches, type AuthBan } from '../../protocol/access/token.ts';
import { isAllowedOrigin } from '../../protocol/access/origin.ts';
import { hostRefusal, isAllowedHost, type AccessPolicy } from '../../protocol/access/host.ts';

export const WS_PATH = '/api/v1/ws';

export interface UpgradeAuth {
  token: string;
  bypass: boolean;
  ban: AuthBan;
  access: AccessPolicy;
}

export type UpgradeVerdict = { ok: true } | { ok: false; status: number; code: Code; msg: string };

function refusal(status: number, code: Code, msg: string): UpgradeVerdict {
  return { ok: false, status, code, msg };
}

function offeredProtocols(req: IncomingMessage): string[] {
  return String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** The `svc-code.bearer.<token>` subprotocol a client offered, if any. */
export function bearerProtocol(offered: Iterable<string>): string | undefined {
  for (const p of offered) if (p.startsWith(BEARER_SUBPROTOCOL_PREFIX)) return p;
  return undefined;
}

/**
 * The same gate as the REST middleware, in the same order: path (only its one canonical
 * spelling upgrades), Host (403), Origin (403), ban (429), token from the header or the
 * bearer subprotocol (401, counted).
 */
export function checkUpgrade(auth: UpgradeAuth, req: IncomingMessage): UpgradeVerdict {
  const path = (req.url ?? '').split('?')[0];
  if (path !== WS_PATH) return refusal(404, Codes.VALIDATION, `no such endpoint: GET ${path}`);
  const host = req.headers.host;
  if (!isAllowedHost(host, auth.access)) return refusal(403, Codes.UNAUTHORIZED, hostRefusal(host ?? '').msg);
  const origin = req.headers.origin;
  if (!isAllowedOrigin(origin, host, auth.access)) return refusal(403, Codes.UNAUTHORIZED, `origin not allowed: ${origin}`);
  const source = req.socket.remoteAddress ?? 'unknown';
  if (auth.ban.isBanned(source)) return refusal(429, Codes.AUTH_BANNED, 'too many authentication failures; banned for 60 s');
  if (auth.bypass) return { ok: true };
  const fromHeader = bearerFrom(req.headers.authorization);
  const fromProtocol = bearerProtocol(offeredProtocols(req))?.slice(BEARER_SUBPROTOCOL_PREFIX.length);
  if (tokenMatches(fromHeader, auth.token) || tokenMatches(fromProtocol, auth.token)) return { ok: true };
  auth.ban.recordFailure(source);
  return refusal(401, Codes.UNAUTHORIZED, 'unauthorized: missing or invalid bearer token');
}

const REASONS: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' };

/** Answers a refused upgrade with a plain HTTP response carrying the usual envelope (`requestId` a fresh ULID), then closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, code: Code, msg: string, requestId: string): void {
  const body = JSON.stringify({ code, msg, data: null, request_id: requestId });
  // The peer may already be gone; a write error here only means there is nobody to tell.
  socket.once('error', () => socket.destroy());
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
      'Connection: close\r\nContent-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
