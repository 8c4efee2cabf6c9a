import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppContext, ConnectionInfo } from '../app/context.ts';
import type { AuthBan } from '../http/middleware/auth.ts';

/** STUB: the WebSocket hub (`/api/v1/ws`) is built by the WebSocket work. */
export class WsHub {
  constructor(private readonly app: AppContext, private readonly ban: AuthBan) {}

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      void req;
    });
  }

  connections(): ConnectionInfo[] {
    return [];
  }

  async close(): Promise<void> {}
}
