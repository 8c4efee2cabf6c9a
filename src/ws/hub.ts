import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import type { Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Logger } from '../lib/logger.ts';
import type { ServeOptions } from '../app/options.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { ConnectionInfo } from '../../protocol/schemas/connections.ts';
import type { TerminalService } from '../terminals/service.ts';
import { Codes } from '../../protocol/codes.ts';
import type { AuthBan } from '../../protocol/access/token.ts';
import type { VolatileType } from '../../protocol/events/registry.ts';
import type { AccessPolicy } from '../../protocol/access/host.ts';
import { handleClientMessage, type ClientFrameDeps } from './client-frames.ts';
import { WsConnection, type ConnectionLimits } from './connection.ts';
import { FanOut } from './fanout.ts';
import type { LiveTranscripts } from '../../projections/transcript/live/live-transcripts.ts';
import type { TranscriptPacing } from './transcript/pacing.ts';
import { serverHello } from './server-frames.ts';
import { bearerProtocol, checkUpgrade, refuseUpgrade, type UpgradeAuth } from './upgrade.ts';

const CLOSE_GRACE_MS = 10_000;
const SHUTDOWN_GRACE_MS = 1_000;
/** Client frames are small JSON requests. */
const MAX_CLIENT_FRAME = 1024 * 1024;

/** The hub's tuning (src/app/settings.ts): a client's high-water mark (default 8 MiB) and the delta coalescing window. */
export interface WsSettings {
  maxBufferedBytes: number;
  coalesceMs: number;
}

export type WsHubDeps = ClientFrameDeps & {
  /** The bearer token upgrades must carry (unless the bind bypasses auth). */
  token: string;
  options: Pick<ServeOptions, 'dangerousBypassAuth'>;
  journal: Journal;
  liveTranscripts: LiveTranscripts;
  /** The pacing of the live transcripts' batches, one for every hub (each batch takes one seq): the fan-out is an outlet of it. */
  transcriptPacing: TranscriptPacing;
  /** `settings.ws`: `SVC_CODE_WS_MAX_BUFFERED_BYTES` (tests set it tiny), `SVC_CODE_WS_COALESCE_MS`. */
  wsSettings: WsSettings;
  clock: Clock;
  ids: Ids;
  log: Logger;
  terminals: Pick<TerminalService, 'detachConnection'>;
};

/**
 * The WebSocket event stream `/api/v1/ws`: upgrade gate, connection registry, fan-out. startServer
 * registers `onCommitted` among the journal's subscribers and `publishVolatile` on the volatile bus.
 */
export class WsHub {
  private readonly wss: WebSocketServer;
  private readonly conns = new Map<string, WsConnection>();
  private readonly fanout: FanOut;
  private readonly limits: ConnectionLimits;
  private readonly auth: UpgradeAuth;
  private closed = false;

  constructor(private readonly deps: WsHubDeps, ban: AuthBan, access: AccessPolicy) {
    this.limits = { highWater: deps.wsSettings.maxBufferedBytes, closeGraceMs: CLOSE_GRACE_MS };
    this.auth = { token: deps.token, bypass: deps.options.dangerousBypassAuth, ban, access };
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: MAX_CLIENT_FRAME,
      // Browsers must get back the bearer subprotocol they offered, or they drop the connection.
      handleProtocols: (offered) => bearerProtocol(offered) ?? false,
    });
    this.fanout = new FanOut(deps, () => this.conns.values(), deps.wsSettings.coalesceMs);
  }

  attach(server: Server): void {
    server.on('upgrade', this.onUpgrade);
  }

  /** Subscriber of committed events (src/app/subscribers.ts): durable frames, after each batch is on disk. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    if (!this.closed) this.fanout.onCommitted(events);
  };

  /** Listener of the volatile bus: a volatile frame (`*.delta`, `tool.progress`, `shell.*`) to a session's subscribers. */
  readonly publishVolatile = (sessionId: string, type: VolatileType, payload: unknown, offset?: number): void => {
    this.fanout.publishVolatile(sessionId, type, payload, offset);
  };

  /** Live connections, oldest first. */
  connections(): ConnectionInfo[] {
    return [...this.conns.values()].map((c) => c.info());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.fanout.close();
    const open = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(open.map((c) => c.shutdown(SHUTDOWN_GRACE_MS)));
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (this.closed) return refuseUpgrade(socket, 503, Codes.INTERNAL, 'server shutting down', this.deps.ids.ulid());
    const verdict = checkUpgrade(this.auth, req);
    if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.code, verdict.msg, this.deps.ids.ulid());
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req, socket));
  };

  private accept(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    const id = this.deps.ids.next('wsc');
    const meta = {
      connectedAt: this.deps.clock.now(),
      remoteAddress: req.socket.remoteAddress ?? null,
      userAgent: req.headers['user-agent'] ?? null,
    };
    const conn = new WsConnection(id, ws, socket, meta, this.limits, (c) => {
      this.conns.delete(c.id);
      this.deps.terminals.detachConnection(c);
    });
    ws.on('message', (data) => handleClientMessage(this.deps, conn, data));
    ws.on('error', (err) => this.deps.log.debug({ err, ws_connection_id: id }, 'ws connection error'));
    conn.send(serverHello(id, meta.connectedAt));
    this.conns.set(id, conn);
  }
}
