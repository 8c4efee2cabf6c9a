import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm } from 'node:fs/promises';
import { CommitWaits } from '../../journal/commit-waits.ts';
import type { Projections } from './projections.ts';
import type { WireContext } from '../../protocol/events/wire.ts';
import { startCore } from './core.ts';
import { SearchService, budgetsFromEnv, searchIndexDir, searchWorkerYoungMbFromEnv } from '../search/service.ts';
import { releaseSemiSpaceFlagForWorkers } from './worker-heap.ts';
import { ConfigService } from '../config/service.ts';
import { ConfigWatchers } from '../config/watchers.ts';
import { createHttpApp, newAuthBan } from '../http/app.ts';
import { accessPolicy } from '../../protocol/access/host.ts';
import { allRoutes } from '../http/routes/index.ts';
import { LiveSessions } from '../sessions/live.ts';
import { TerminalService } from '../terminals/service.ts';
import { TaskNotifier } from '../tasks/notify.ts';
import { TaskService } from '../tasks/service.ts';
import { WorkspaceDirs } from '../workspaces/extra-dirs.ts';
import type { LiveTranscripts } from '../../projections/transcript/live/live-transcripts.ts';
import { createLiveTranscripts } from './live-transcripts.ts';
import { WsHub } from '../ws/hub.ts';
import { UploadService } from '../uploads/service.ts';
import { createAutoTitle, type AutoTitle } from '../engine/titles/auto.ts';
import { AuthService } from '../auth/service.ts';
import { ClientCache } from '../engine/model-resolve.ts';
import { EngineRegistry, type LoadedRuntimes } from '../engine/runtime-registry.ts';
import { BuiltinToolExecutor, type ToolReplay } from '../tools/executor.ts';
import type { ReadStamps } from '../tools/read-stamps.ts';
import { PermissionService } from '../permissions/service.ts';
import { QuestionService } from '../questions/service.ts';
import { McpService } from '../mcp/service.ts';
import { McpManagement } from '../mcp/management.ts';
import { OAuthFlows } from '../mcp/oauth-flows.ts';
import { UserMcpFile } from '../mcp/user-file.ts';
import { PluginStore } from '../plugins/store.ts';
import { GoalDriver } from '../goals/driver.ts';
import type { AgentCatalog } from '../agents/catalog.ts';
import { CAPABILITIES } from '../capabilities/defs.ts';
import { SNAPSHOT_PATH } from '../providers/catalog/directory.ts';
import { ModelPricing } from '../providers/catalog/pricing.ts';
import { CapabilityService } from '../capabilities/service.ts';
import { acceptPrompt } from '../engine/prompt-intake.ts';
import type { PromptInput } from '../../protocol/schemas/prompts.ts';
import { MCP_OAUTH_CALLBACK_PATH } from '../http/routes/mcp-auth.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import type { ConnectionInfo } from '../../protocol/schemas/connections.ts';
import { EventJournal } from '../events/journal.ts';
import { VolatileBus } from '../events/volatile-bus.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { loadOrCreateToken, registerInstance } from './home.ts';
import { Instances } from './instances.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { PORT_TRIES, type ServeOptions } from './options.ts';
import { committedSubscribers, registerSubscribers } from './subscribers.ts';
import { SERVER_VERSION } from './version.ts';
import { SessionLogTap, tappedLogger } from '../archive/log-tap.ts';
import { numberFromEnv } from '../lib/env-number.ts';

export interface StartOptions {
  home: string;
  options: ServeOptions;
  log?: Logger;
  /** Stamps every time the daemon records (tests pass one they move). */
  clock?: Clock;
  /** Mints every id (tests may pass a deterministic one). */
  ids?: Ids;
  /** How often to reconcile with other daemons on the same home (ms; 0 = never). */
  reconcileIntervalMs?: number;
  /** Test runs: every appended and published event is checked against the registry (docs/events.md). */
  checker?: ContractChecker;
  /** `svc-code replay`: model clients that serve recorded answers, and tool calls answered from the record (docs/replay.md). */
  replay?: { clients: ClientCache; tools?: ToolReplay };
  /** Base delay of model-request retries (ms; default: `SVC_CODE_RETRY_BASE_MS`, else 500). Replay passes 0. */
  retryBaseMs?: number;
}

const DEFAULT_RECONCILE_MS = 30_000;

/**
 * What startServer built, by name. It exists here only to hand each route factory and the hub what
 * they declare (each typed with its own part) and to let tests reach the parts; no module imports it.
 */
/** Everything the routes and subscribers use; the journal's read models come from {@link Projections}. */
export interface Services extends Omit<Projections, 'all'> {
  home: string;
  /** What each agent last read of each file (the Edit/Write staleness guard); a deleted session's go with it. */
  stamps: ReadStamps;
  serverId: string;
  version: string;
  startedAt: Date;
  options: ServeOptions;
  token: string;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /** The recent log lines of each session (session exports). */
  logTap: SessionLogTap;
  journal: EventJournal;
  bus: VolatileBus;
  config: ConfigService;
  /** The live transcript folds: ops, batch counters, the op journal (projections/transcript/live/). */
  liveTranscripts: LiveTranscripts;
  /** What v1 frames read besides their events: their place in their agent's turns, the session's cwd (spec/clients.md F). */
  wire: WireContext;
  /** Waits for a stream's events to be on disk (reads of on-disk records bounded by the head). */
  commits: CommitWaits;
  instances: Instances;
  /** Uploaded files (POST /api/v1/files), also looked up for prompt media `{kind:file, file_id}`. */
  uploads: UploadService;
  /** OAuth logins and access tokens of the managed provider. */
  auth: AuthService;
  /** PTY terminals of this daemon (live state). */
  terminals: TerminalService;
  /** add-dir runtime state: in-memory directories per workspace. */
  workspaceDirs: WorkspaceDirs;
  /** Live state of loaded sessions (busy, pending interaction, bound model). */
  live: LiveSessions;
  /** Model clients shared by every runtime, the prompt intake and title generation. */
  clients: ClientCache;
  runtimes: LoadedRuntimes;
  notes: TaskNotifier;
  /** Background Bash tasks and subagents of live sessions. */
  tasks: TaskService;
  /** Permission gate of tool calls and pending approvals (see src/permissions/types.ts). */
  permissions: PermissionService;
  /** AskUserQuestion: pending questions of tool calls. */
  questions: QuestionService;
  tools: BuiltinToolExecutor;
  /** MCP servers of live sessions (start and stop with the runtime; docs/mcp.md). */
  mcp: McpService;
  /** /api/v2/mcp: the layers' catalog, the user file, probes. */
  mcpManagement: McpManagement;
  configWatchers: ConfigWatchers;
  /** OAuth flows of MCP servers. */
  mcpOAuth: OAuthFlows;
  /** Installed plugins (docs/plugins.md). */
  plugins: PluginStore;
  /** Custom agents (profiles, subagent types; docs/agents.md). */
  agents: AgentCatalog;
  /** Capabilities (computer use, browser extension): checks and background installs. */
  capabilities: CapabilityService;
  /** Prices of well-known models (the built-in catalog snapshot): the snapshot's usage total_cost_usd. */
  pricing: ModelPricing;
  /** Agent runtimes of live sessions (prompt queues, turn loops). */
  engine: EngineRegistry;
  /** Cross-session search (POST /api/v1/search; docs/search.md). */
  search: SearchService;
  autoTitle: AutoTitle;
  /** Connections of the WebSocket hub, for GET /api/v1/connections. */
  connections(): ConnectionInfo[];
  /** Asks the server to stop (POST /api/v1/shutdown). */
  requestShutdown(): void;
}

export interface RunningServer {
  services: Services;
  port: number;
  baseUrl: string;
  /** Resolves when the server has fully stopped. */
  closed: Promise<void>;
  close(): Promise<void>;
}

async function listenWithRetry(server: http.Server, host: string, port: number): Promise<number> {
  for (let i = 0; i < (port === 0 ? 1 : PORT_TRIES); i++) {
    const candidate = port === 0 ? 0 : port + i;
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        server.once('error', onError);
        server.listen(candidate, host, () => {
          server.off('error', onError);
          resolve();
        });
      });
      return (server.address() as AddressInfo).port;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new Error(`no free port in ${port}..${port + PORT_TRIES - 1}`);
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The composition root: builds every part with the collaborators it declares, in dependency order
 * (docs/architecture.md "Wiring"), registers the reactions to committed events, and listens.
 */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const { home, options, checker } = opts;
  // Every line also goes to the tap, which keeps each session's recent lines for its export.
  const logTap = new SessionLogTap();
  const log = tappedLogger(opts.log ?? createLogger(), logTap);
  await mkdir(home, { recursive: true });
  const token = await loadOrCreateToken(home);

  // The engine on the home's journal (src/app/core.ts, shared with print mode); MCP OAuth redirects come back to
  // this daemon's own loopback callback, known once it listens.
  let listeningOn = '';
  const redirectUrl = () => `${listeningOn}${MCP_OAUTH_CALLBACK_PATH}`;
  const core = await startCore({
    home, log, clock: opts.clock, ids: opts.ids, checker, rebuildProjections: options.rebuildProjections, replay: opts.replay, retryBaseMs: opts.retryBaseMs,
    mcpRedirectUrl: redirectUrl,
  });
  const { clock, ids, serverId, startedAt, journal, primary, config, sessions, workspaces, instances, bus, clients, engine, mcp, grants, notes, tasks, hooks, commits, wire } = core;

  // The parts only the daemon has: terminals, capabilities, MCP management and OAuth flows.
  const terminals = new TerminalService({ journal, options, clock, ids, log });
  const capabilities = new CapabilityService({ home, journal, log, defs: CAPABILITIES });
  const pricing = await ModelPricing.load(SNAPSHOT_PATH).catch((err: unknown) => {
    log.warn({ err: (err as Error).message, path: SNAPSHOT_PATH }, 'model prices unreadable: usage total_cost_usd stays absent');
    return new ModelPricing(new Map());
  });
  const mcpManagement = new McpManagement({ mcp, file: new UserMcpFile(home), grants, clock });
  // `[watch] enabled`: config.toml, the MCP config and local.toml reloaded when edited (src/config/watchers.ts).
  const configWatchers = new ConfigWatchers({ home, config, workspaces, mcp, log });
  configWatchers.sync();
  const mcpOAuth = new OAuthFlows({
    grants, ids, log, redirectUrl, clientName: () => config.current().identity.name,
    authorized: (key) => mcp.grantAuthorized(key), reset: (key) => mcp.grantReset(key),
  });
  // The search index (a worker thread with [database] search = true); built from the journal once the subscribers run.
  // With the worker, the daemon's `--max-semi-space-size` is cleared for isolates created from now on, so the
  // worker's own young generation (workerYoungMb) holds; the main thread keeps its 8 MB semi-spaces. Process-wide:
  // any later worker gets V8's default instead (src/app/worker-heap.ts says why; test/search/worker-heap.test.ts).
  const useSearchWorker = config.current().database.search;
  if (useSearchWorker) releaseSemiSpaceFlagForWorkers();
  const search = new SearchService({
    journal, sessions, engine, ids, log, useWorker: useSearchWorker, budgets: budgetsFromEnv(), workerYoungMb: searchWorkerYoungMbFromEnv(process.env),
    dir: searchIndexDir(home, primary.id), rebuild: options.rebuildProjections,
  });
  const autoTitle = createAutoTitle({ journal, sessions, workspaces, instances, config, auth: core.auth, clients, clock, log });

  // The transports: the hub, the routes, the HTTP server.
  const ban = newAuthBan(options.host);
  const access = accessPolicy(options);
  const shutdown = new AbortController();
  const liveTranscripts = createLiveTranscripts({ journal, clock, log }, process.env);
  const hub = new WsHub({ token, options, journal, liveTranscripts, wire, clock, ids, log, sessions, workspaces, instances, terminals }, ban, access);
  const services: Services = {
    home, serverId, version: SERVER_VERSION, startedAt, options, token, clock, ids, log, logTap, journal, bus, config, sessions, workspaces,
    gui: core.gui, messages: core.messages, usage: core.usage, transcripts: core.transcripts, liveTranscripts, wire, fileHistory: core.fileHistory, turnIndex: core.turnIndex,
    commits, instances, uploads: core.uploads, auth: core.auth, terminals, workspaceDirs: core.workspaceDirs, live: core.live, clients, runtimes: core.runtimes, notes, tasks,
    permissions: core.permissions, questions: core.questions, tools: core.tools, stamps: core.stamps, mcp, mcpManagement, configWatchers, mcpOAuth, plugins: core.plugins,
    agents: core.agents, capabilities, pricing, engine, search, autoTitle,
    connections: () => hub.connections(),
    requestShutdown: () => shutdown.abort(),
  };
  // Goals that drive the loop: continuations go through the prompt intake like any prompt; a goal left active by the last run is paused.
  const goals = new GoalDriver({
    journal, sessions, engine, log, submit: (sid, text) => acceptPrompt(services, sid, { content: [{ type: 'text', text }] } as PromptInput, 'goal'),
  });
  await goals.recover();
  const koa = createHttpApp({ log, ids, token, options }, allRoutes(services), ban, access, checker);
  const server = http.createServer(koa.callback());
  server.keepAliveTimeout = 5_000;
  hub.attach(server);

  // Reactions to committed events (src/app/subscribers.ts) and to volatile publishes.
  const unsubscribe = registerSubscribers(journal, committedSubscribers({ commits, instances, terminals, wakeups: core.wakeups, tasks, engine, liveTranscripts, hub, autoTitle, mcp, configWatchers, goals, hooks, search }), log);
  // The live transcripts first: a delta's ops leave no later than its legacy frame.
  const unlistenLive = bus.subscribe(liveTranscripts.onVolatile);
  const unlistenVolatile = bus.subscribe(hub.publishVolatile);
  void search.start();

  const port = await listenWithRetry(server, options.host, options.port);
  const baseUrl = `http://${formatHost(options.host)}:${port}`;
  listeningOn = baseUrl;
  const instanceFile = await registerInstance(home, {
    server_id: serverId, pid: process.pid, host: options.host, port, started_at: startedAt.toISOString(), base_url: baseUrl, journal_slot: primary.id,
  });
  instances.start(baseUrl, opts.reconcileIntervalMs ?? numberFromEnv(process.env, 'SVC_CODE_RECONCILE_INTERVAL_MS', DEFAULT_RECONCILE_MS));
  void instances.reconcile();

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    closing ??= (async () => {
      configWatchers.close();
      await core.stopWork();
      mcpOAuth.close();
      await terminals.closeAll();
      await hub.close();
      liveTranscripts.close();
      await autoTitle.stop();
      await search.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await core.closeStores();
      unlistenVolatile();
      unlistenLive();
      unsubscribe();
      await rm(instanceFile, { force: true });
      resolveClosed();
    })();
    return closing;
  };
  shutdown.signal.addEventListener('abort', () => void close(), { once: true });
  return { services, port, baseUrl, closed, close };
}
