import WebSocket from 'ws';

// The client side of the wire, with no daemon sources: black-box tests of a spawned daemon use it alone.

export const TEST_TOKEN = 'test-token-0123456789';

export interface Envelope<T = any> {
  code: number;
  msg: string;
  data: T;
  request_id: string;
  details?: any;
}

export interface WsClient {
  socket: WebSocket;
  frames: any[];
  /** Sends a client frame and waits for its ack. */
  request(type: string, payload: unknown, id?: string): Promise<any>;
  /** Waits for the first frame (already received or future) matching `pred`. */
  waitFor(pred: (f: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
}

let frameId = 0;

export async function connectWs(baseUrl: string, protocols?: string[], headers: Record<string, string> = {}): Promise<WsClient> {
  const socket = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/api/v1/ws', protocols, { headers });
  const frames: any[] = [];
  const waiters: { pred: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data));
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.pred(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  const waitFor: WsClient['waitFor'] = (pred, timeoutMs = 30_000) => {
    const hit = frames.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for frame')), timeoutMs);
      waiters.push({ pred, resolve: (f) => { clearTimeout(timer); resolve(f); } });
    });
  };
  return {
    socket, frames, waitFor,
    request: (type, payload, id = `req-${++frameId}`) => {
      socket.send(JSON.stringify({ type, id, payload }));
      return waitFor((f) => f.type === 'ack' && f.id === id);
    },
    close: () => new Promise((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) return resolve();
      socket.once('close', () => resolve());
      socket.close();
    }),
  };
}
