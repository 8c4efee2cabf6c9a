import WebSocket from 'ws';
import { BENCH_TOKEN } from './http.ts';

export interface BenchWs {
  socket: WebSocket;
  /** Sends a client frame and resolves with its ack. */
  request(type: string, payload: unknown): Promise<any>;
  /** Called with every parsed server frame (acks included). */
  onFrame: ((frame: any) => void) | null;
  /** Set when the server closed the connection (e.g. 1013 slow consumer). */
  closedWith: { code: number; reason: string } | null;
  close(): Promise<void>;
}

let nextFrameId = 0;

/** A `ws` client on /api/v1/ws with the bearer header; resolves after the server_hello frame. */
export async function connectWs(baseUrl: string, timeoutMs = 10_000): Promise<BenchWs> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/v1/ws`, { headers: { Authorization: `Bearer ${BENCH_TOKEN}` }, perMessageDeflate: false });
  const acks = new Map<string, (f: any) => void>();
  const client: BenchWs = {
    socket,
    onFrame: null,
    closedWith: null,
    request: (type, payload) => new Promise((resolve, reject) => {
      const id = `b${++nextFrameId}`;
      const timer = setTimeout(() => reject(new Error(`no ack for ${type} within ${timeoutMs} ms`)), timeoutMs);
      acks.set(id, (f) => {
        clearTimeout(timer);
        resolve(f);
      });
      socket.send(JSON.stringify({ type, id, payload }));
    }),
    close: () => new Promise((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) return resolve();
      socket.once('close', () => resolve());
      socket.close();
    }),
  };
  const hello = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no server_hello')), timeoutMs);
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === 'server_hello') {
        clearTimeout(timer);
        resolve();
      } else if (frame.type === 'ack' && acks.has(frame.id)) {
        acks.get(frame.id)!(frame);
        acks.delete(frame.id);
      }
      client.onFrame?.(frame);
    });
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
  socket.on('close', (code, reason) => (client.closedWith = { code, reason: String(reason) }));
  await hello;
  return client;
}
