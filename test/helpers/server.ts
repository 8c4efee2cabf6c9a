import { fetchNamed } from './wait.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { defaultServeOptions, type ServeOptions } from '../../src/app/options.ts';
import { startServer, type RunningServer, type ServerParts } from '../../src/app/server.ts';
import { readSettings } from '../../src/app/settings.ts';
import { wsHubDeps } from '../../src/app/phases/transport.ts';
import type { WsHubDeps } from '../../src/ws/hub.ts';
import type { OwnerLookup } from '../../src/nodes/types.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { WorkspaceRecord } from '../../projections/workspaces/workspace-registry.ts';
import { connectWs, TEST_TOKEN, type Envelope, type WsClient } from './wire.ts';
import { ContractChecker, formatViolations } from '../../protocol/contract-check.ts';
import { TestClock } from './clock.ts';
import { tempDir } from './fs.ts';

export { connectWs, TEST_TOKEN, TestClock, type Envelope, type WsClient };

/**
 * The parts of the running server tests reach, by name (the test facade: tests never take the server's parts whole).
 * The journal to append test events to, read a stream from and watch; the read models asserted on (`sessions`,
 * `workspaces`, `transcripts`, `fileHistory`, `liveTranscripts`); the services a test drives or inspects directly.
 */
export type ServerReach = Pick<ServerParts,
  | 'journal' | 'bus' | 'ids' | 'log' | 'version'
  | 'sessions' | 'workspaces' | 'transcripts' | 'fileHistory' | 'liveTranscripts'
  | 'config' | 'configWatchers' | 'auth' | 'uploads' | 'workspaceDirs' | 'live' | 'engine' | 'notes' | 'tasks'
  | 'permissions' | 'questions' | 'mcp' | 'mcpOAuth' | 'search' | 'instances'
  /** Every route as declared (what /openapi.json is generated from). */
  | 'routes'>;

export interface TestServer extends ServerReach {
  /** What the server's WebSocket hub is built from: a test builds a second hub on its own listener from it. */
  hubDeps: WsHubDeps;
  /** The running daemon: its port, its stop. */
  server: Pick<RunningServer, 'port' | 'close' | 'closed'>;
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
  /** Every event of a stream (a session id, or the global stream) from `fromSeq` (default 1), as on disk. */
  eventsOf(stream: string, fromSeq?: number): Promise<JournalEvent[]>;
  /** Collects, from now on, every committed event `keep` accepts (default: all), into the array returned. */
  committed<E = JournalEvent>(keep?: (e: JournalEvent) => boolean): E[];
  /** The workspace record of a session (its root, trust, ...). */
  workspaceOf(sessionId: string): WorkspaceRecord;
  stop(): Promise<void>;
  /** Stops the server but keeps the home, for a restart on the same data. */
  restart(options?: Partial<ServeOptions>): Promise<TestServer>;
}

/** Makes a temp SVC_CODE_HOME. */
export async function tempHome(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'svc-code-test-'));
}

/**
 * A test server stopped when the test ends; `config` is written to its home's config.toml before it starts; `env`
 * is added to the process environment the server's settings are read from (src/app/settings.ts), for it alone.
 */
export async function serverFor(
  t: { teardown(fn: () => unknown): void }, opts: { config?: string; options?: Partial<ServeOptions>; env?: NodeJS.ProcessEnv } = {},
): Promise<TestServer> {
  const home = await tempHome();
  if (opts.config !== undefined) await writeFile(path.join(home, 'config.toml'), opts.config);
  const s = await startTestServer({ home, options: opts.options, env: opts.env });
  t.teardown(() => s.stop());
  return s;
}

/** POST /api/v1/sessions with a fresh temp directory as cwd (`body` is merged in); throws unless created. */
export async function newSession(s: TestServer, body: Record<string, unknown> = {}): Promise<string> {
  const res = await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() }, ...body });
  if (res.code !== 0) throw new Error(`session create failed: ${JSON.stringify(res)}`);
  return res.data.id;
}

/**
 * Starts the real server on an ephemeral loopback port with a temp home. Its settings are read from the process
 * environment as it is now, plus `env` (for this server alone): a variable set after the start changes nothing.
 */
export async function startTestServer(
  opts: {
    home?: string; options?: Partial<ServeOptions>; keepHome?: boolean; log?: pino.Logger; env?: NodeJS.ProcessEnv;
    /** PostgreSQL nodes: which node owns each session (a stub in tests of the forwarding; default: every session is run here). */
    owners?: OwnerLookup;
  } = {},
): Promise<TestServer> {
  const home = opts.home ?? (await tempHome());
  process.env.SVC_CODE_SERVER_TOKEN = TEST_TOKEN;
  const settings = readSettings({ ...process.env, ...opts.env });
  const options = { ...defaultServeOptions(), port: 0, ...opts.options };
  const checker = new ContractChecker();
  const clock = new TestClock();
  const log = opts.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const server = await startServer({ home, settings, options, log, checker, clock, owners: opts.owners });
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
    ...reach(server.parts), hubDeps: wsHubDeps(server.parts), server, home, baseUrl, token: TEST_TOKEN, req, checker, clock,
    eventsOf: (stream, fromSeq = 1) => server.parts.journal.readRange(stream, fromSeq),
    committed: <E>(keep: (e: JournalEvent) => boolean = () => true) => {
      const seen: E[] = [];
      server.parts.journal.on('committed', (events: JournalEvent[]) => seen.push(...(events.filter(keep) as E[])));
      return seen;
    },
    workspaceOf: (sessionId) => {
      const { sessions, workspaces } = server.parts;
      const session = sessions.get(sessionId);
      const ws = session && workspaces.get(session.workspace_id);
      if (!ws) throw new Error(`no workspace for session ${sessionId}`);
      return ws;
    },
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
      return startTestServer({ home, options: { ...opts.options, ...options }, keepHome: opts.keepHome, env: opts.env, owners: opts.owners });
    },
  };
  return ts;
}

function reach(p: ServerParts): ServerReach {
  const {
    journal, bus, ids, log, version, sessions, workspaces, transcripts, fileHistory, liveTranscripts, config, configWatchers, auth, uploads,
    workspaceDirs, live, engine, notes, tasks, permissions, questions, mcp, mcpOAuth, search, routes, instances,
  } = p;
  return {
    journal, bus, ids, log, version, sessions, workspaces, transcripts, fileHistory, liveTranscripts, config, configWatchers, auth, uploads,
    workspaceDirs, live, engine, notes, tasks, permissions, questions, mcp, mcpOAuth, search, routes, instances,
  };
}

/**
 * Fails the test whose server sent what its own contract does not describe: an event its registry
 * entry does not match (docs/events.md), a business code a route does not declare, or route data
 * its response schema does not match.
 */
function assertNoViolations(checker: ContractChecker): void {
  if (checker.violations.length) throw new Error(`what the server sent does not match the contract:\n${formatViolations(checker.violations)}`);
}
