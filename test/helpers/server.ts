import { fetchNamed } from './wait.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { defaultServeOptions, type ServeOptions } from '../../src/app/options.ts';
import { startServer, type RunningServer } from '../../src/app/server.ts';
import { connectWs, TEST_TOKEN, type Envelope, type WsClient } from './wire.ts';
import { ContractChecker, formatViolations } from '../../protocol/contract-check.ts';
import { TestClock } from './clock.ts';
import { tempDir } from './fs.ts';

export { connectWs, TEST_TOKEN, TestClock, type Envelope, type WsClient };

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
  /** Every event, route code and route data the server sent is checked against the contract; stop() fails on a mismatch. */
  checker: ContractChecker;
  /** The server's clock: the system time until a test sets it. */
  clock: TestClock;
  stop(): Promise<void>;
  /** Stops the server but keeps the home, for a restart on the same data. */
  restart(options?: Partial<ServeOptions>): Promise<TestServer>;
}

/** Makes a temp SVC_CODE_HOME. */
export async function tempHome(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'svc-code-test-'));
}

/** A test server stopped when the test ends; `config` is written to its home's config.toml before it starts. */
export async function serverFor(t: { teardown(fn: () => unknown): void }, opts: { config?: string; options?: Partial<ServeOptions> } = {}): Promise<TestServer> {
  const home = await tempHome();
  if (opts.config !== undefined) await writeFile(path.join(home, 'config.toml'), opts.config);
  const s = await startTestServer({ home, options: opts.options });
  t.teardown(() => s.stop());
  return s;
}

/** POST /api/v1/sessions with a fresh temp directory as cwd (`body` is merged in); throws unless created. */
export async function newSession(s: TestServer, body: Record<string, unknown> = {}): Promise<string> {
  const res = await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() }, ...body });
  if (res.code !== 0) throw new Error(`session create failed: ${JSON.stringify(res)}`);
  return res.data.id;
}

/** Starts the real server on an ephemeral loopback port with a temp home. */
export async function startTestServer(opts: { home?: string; options?: Partial<ServeOptions>; keepHome?: boolean } = {}): Promise<TestServer> {
  const home = opts.home ?? (await tempHome());
  process.env.SVC_CODE_SERVER_TOKEN = TEST_TOKEN;
  const options = { ...defaultServeOptions(), port: 0, ...opts.options };
  const checker = new ContractChecker();
  const clock = new TestClock();
  const server = await startServer({ home, options, log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), checker, clock });
  const baseUrl = server.baseUrl;
  const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
  const req: TestServer['req'] = async (method, url, body, headers = {}) => {
    const res = await fetchNamed(baseUrl + url, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : (null as any) };
  };
  const ts: TestServer = {
    server, home, baseUrl, token: TEST_TOKEN, req, checker, clock,
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

/**
 * Fails the test whose server sent what its own contract does not describe: an event its registry
 * entry does not match (docs/events.md), a business code a route does not declare, or route data
 * its response schema does not match.
 */
function assertNoViolations(checker: ContractChecker): void {
  if (checker.violations.length) throw new Error(`what the server sent does not match the contract:\n${formatViolations(checker.violations)}`);
}
