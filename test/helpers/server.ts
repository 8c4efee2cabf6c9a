import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import pino from 'pino';
import { defaultServeOptions, type ServeOptions } from '../../src/app/options.ts';
import { startServer, type RunningServer } from '../../src/app/server.ts';
import { EventChecker, formatViolations } from '../../src/events/check.ts';

export const TEST_TOKEN = 'test-token-0123456789';

export interface Envelope<T = any> {
  code: number;
  msg: string;
  data: T;
  request_id: string;
  details?: any;
}

export interface TestServer {
  server: RunningServer;
  home: string;
  baseUrl: string;
  token: string;
  /** JSON request with the bearer token; returns status, headers and parsed body. */
  req<T = any>(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: Envelope<T> }>;
  get<T = any>(url: string): Promise<Envelope<T>>;
  post<T = any>(url: string, body?: unknown): Promise<Envelope<T>>;
  ws(opts?: { protocols?: string[]; headers?: Record<string, string> }): Promise<WsClient>;
  /** Every event the server appended or published is checked against the registry; stop() fails on a mismatch. */
  checker: EventChecker;
  stop(): Promise<void>;
  /** Stops the server but keeps the home, for a restart on the same data. */
  restart(options?: Partial<ServeOptions>): Promise<TestServer>;
}

/** Makes a temp SVC_CODE_HOME. */
export async function tempHome(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'svc-code-test-'));
}

/** Starts the real server on an ephemeral loopback port with a temp home. */
export async function startTestServer(opts: { home?: string; options?: Partial<ServeOptions>; keepHome?: boolean } = {}): Promise<TestServer> {
  const home = opts.home ?? (await tempHome());
  process.env.SVC_CODE_SERVER_TOKEN = TEST_TOKEN;
  const options = { ...defaultServeOptions(), port: 0, ...opts.options };
  const checker = new EventChecker();
  const server = await startServer({ home, options, log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), checker });
  const baseUrl = server.baseUrl;
  const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
  const req: TestServer['req'] = async (method, url, body, headers = {}) => {
    const res = await fetch(baseUrl + url, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : (null as any) };
  };
  const ts: TestServer = {
    server, home, baseUrl, token: TEST_TOKEN, req, checker,
    get: async (url) => (await req('GET', url)).body,
    post: async (url, body) => (await req('POST', url, body ?? {})).body,
    ws: (o = {}) => connectWs(baseUrl, o.protocols, o.headers ?? (o.protocols ? {} : auth)),
    stop: async () => {
      await server.close();
      if (!opts.keepHome) await rm(home, { recursive: true, force: true });
      assertNoViolations(checker);
    },
    restart: async (options) => {
      await server.close();
      assertNoViolations(checker);
      return startTestServer({ home, options: { ...opts.options, ...options }, keepHome: opts.keepHome });
    },
  };
  return ts;
}

/** Fails the test that emitted an event its registry entry does not describe (docs/events.md). */
function assertNoViolations(checker: EventChecker): void {
  if (checker.violations.length) throw new Error(`emitted events do not match the registry:\n${formatViolations(checker.violations)}`);
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
  const waitFor: WsClient['waitFor'] = (pred, timeoutMs = 5000) => {
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
