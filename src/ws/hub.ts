import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { monotonicFactory } from 'ulid';
import WebSocket, { WebSocketServer } from 'ws';
import type { AppContext, ConnectionInfo } from '../app/context.ts';
import { Codes } from '../protocol/codes.ts';
import type { AuthBan } from '../protocol/access/token.ts';
import type { AccessPolicy } from '../protocol/access/host.ts';
import { handleClientMessage } from './client-frames.ts';
import { WsConnection, type ConnectionLimits } from './connection.ts';
import { FanOut } from './fanout.ts';
import { serverHello } from './server-frames.ts';
import { bearerProtocol, checkUpgrade, refuseUpgrade, type UpgradeAuth } from './upgrade.ts';

const nextUlid = monotonicFactory();
const DEFAULT_HIGH_WATER = 8 * 1024 * 1024;
const CLOSE_GRACE_MS = 10_000;
const SHUTDOWN_GRACE_MS = 1_000;
/** Client frames are small JSON requests. */
const MAX_CLIENT_FRAME = 1024 * 1024;

/** SVC_CODE_WS_MAX_BUFFERED_BYTES overrides the per-client high-water mark (tests set it tiny). */
function limitsFromEnv(env: NodeJS.ProcessEnv): ConnectionLimits {
  const n = Number(env.SVC_CODE_WS_MAX_BUFFERED_BYTES);
  return { highWater: Number.isInteger(n) && n > 0 ? n : DEFAULT_HIGH_WATER, closeGraceMs: CLOSE_GRACE_MS };
}

/** The WebSocket event stream `/api/v1/ws`: upgrade gate, connection registry, fan-out wiring. */
export class WsHub {
  private readonly wss: WebSocketServer;
  private readonly conns = new Map<string, WsConnection>();
  private readonly fanout: FanOut;
  private readonly limits: ConnectionLimits;
  private readonly auth: UpgradeAuth;
  private closed = false;

  constructor(private readonly app: AppContext, ban: AuthBan, access: AccessPolicy) {
    this.limits = limitsFromEnv(process.env);
    this.auth = { token: app.token, bypass: app.options.dangerousBypassAuth, ban, access };
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: MAX_CLIENT_FRAME,
      // Browsers must get back the bearer subprotocol they offered, or they drop the connection.
      handleProtocols: (offered) => bearerProtocol(offered) ?? false,
    });
    this.fanout = new FanOut(app, () => this.conns.values());
  }

  attach(server: Server): void {
    server.on('upgrade', this.onUpgrade);
    this.app.journal.on('committed', this.fanout.onCommitted);
  }

  /** Sends a volatile frame (`*.delta`, `tool.progress`, `shell.*`) to a session's subscribers. */
  publishVolatile(sessionId: string, type: string, payload: unknown, offset?: number): void {
    this.fanout.publishVolatile(sessionId, type, payload, offset);
  }

  /** Live connections, oldest first. */
  connections(): ConnectionInfo[] {
    return [...this.conns.values()].map((c) => c.info());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.app.journal.off('committed', this.fanout.onCommitted);
    const open = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(open.map((c) => c.shutdown(SHUTDOWN_GRACE_MS)));
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (this.closed) return refuseUpgrade(socket, 503, Codes.INTERNAL, 'server shutting down');
    const verdict = checkUpgrade(this.auth, req);
    if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.code, verdict.msg);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req, socket));
  };

  private accept(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    const id = `wsc_${nextUlid()}`;
    const meta = {
      connectedAt: this.app.clock.now(),
      remoteAddress: req.socket.remoteAddress ?? null,
      userAgent: req.headers['user-agent'] ?? null,
    };
    const conn = new WsConnection(id, ws, socket, meta, this.limits, (c) => {
      this.conns.delete(c.id);
      this.app.terminals.detachConnection(c);
    });
    ws.on('message', (data) => handleClientMessage(this.app, conn, data));
    ws.on('error', (err) => this.app.log.debug({ err, ws_connection_id: id }, 'ws connection error'));
    conn.send(serverHello(id, meta.connectedAt));
    this.conns.set(id, conn);
  }
}
