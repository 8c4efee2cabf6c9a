import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm } from 'node:fs/promises';
import { exportFile, slotsDir } from '../../journal/slots.ts';
import { CommitWaits } from '../../journal/commit-waits.ts';
import type { Projections } from './projections.ts';
import type { WireContext } from '../../protocol/events/wire.ts';
import { journalFsync, openHomeJournal, startProjections } from './journal-boot.ts';
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
import { followUpMetadata, TaskWakeups } from '../tasks/wakeups.ts';
import { TaskService } from '../tasks/service.ts';
import { WorkspaceDirs } from '../workspaces/extra-dirs.ts';
import { LiveTranscripts, liveRetrimMsFromEnv, liveTurnsFromEnv } from '../ws/transcript/live.ts';
import { coalesceMsFromEnv } from '../ws/coalesce.ts';
import { WsHub } from '../ws/hub.ts';
import { UploadService } from '../uploads/service.ts';
import { createAutoTitle, type AutoTitle } from '../engine/titles/auto.ts';
import { AuthService } from '../auth/service.ts';
import { ClientCache } from '../engine/model-resolve.ts';
import { EngineRegistry, type LoadedRuntimes } from '../engine/runtime-registry.ts';
import { BuiltinToolExecutor, type ToolReplay } from '../tools/executor.ts';
import { ReadStamps } from '../tools/read-stamps.ts';
import { webFetchLimitsFromEnv } from '../webfetch/page.ts';
import { PermissionService } from '../permissions/service.ts';
import { QuestionService } from '../questions/service.ts';
import { McpService } from '../mcp/service.ts';
import { reconnectPolicyFromEnv } from '../mcp/reconnect.ts';
import { McpManagement } from '../mcp/management.ts';
import { OAuthFlows } from '../mcp/oauth-flows.ts';
import { GrantStore } from '../mcp/grants.ts';
import { UserMcpFile } from '../mcp/user-file.ts';
import { PluginStore } from '../plugins/store.ts';
import { AgentCatalog } from '../agents/catalog.ts';
import { BUILTIN_TOOLS } from '../tools/registry.ts';
import { HookRunner } from '../hooks/runner.ts';
import { GoalDriver } from '../goals/driver.ts';
import { CAPABILITIES } from '../capabilities/defs.ts';
import { SNAPSHOT_PATH } from '../providers/catalog/directory.ts';
import { ModelPricing } from '../providers/catalog/pricing.ts';
import { CapabilityService } from '../capabilities/service.ts';
import { ImagePipeline } from '../media/images/pipeline.ts';
import { acceptPrompt } from '../engine/prompt-intake.ts';
import type { PromptInput } from '../../protocol/schemas/prompts.ts';
import { MCP_OAUTH_CALLBACK_PATH } from '../http/routes/mcp-auth.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import type { ConnectionInfo } from '../../protocol/schemas/connections.ts';
import { EventJournal } from '../events/journal.ts';
import { VolatileBus } from '../events/volatile-bus.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { ulidIds, type Ids } from '../lib/ids.ts';
import { loadOrCreateToken, registerInstance } from './home.ts';
import { Instances } from './instances.ts';
import { createLogger, type Logger } from './logger.ts';
import { PORT_TRIES, type ServeOptions } from './options.ts';
import { committedSubscribers, registerSubscribers } from './subscribers.ts';
import { SERVER_VERSION } from './version.ts';
import { SessionLogTap, tappedLogger } from '../archive/log-tap.ts';

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
  /** The live transcript folds: ops, batch counters, the op journal (src/ws/transcript/live.ts). */
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
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? ulidIds();
  await mkdir(home, { recursive: true });
  const token = await loadOrCreateToken(home);

  // The journal, the config that journals its changes, and the projections (derived in each append's batch).
  // (src/app/journal-boot.ts, shared with the offline `svc-code import`.)
  const opened = await openHomeJournal(home, { ids, clock, checker, fsync: journalFsync() });
  const { primary, journal } = opened;
  const config = await ConfigService.load(home, { journal, log });
  const projections = await startProjections(home, opened, { log, rebuild: options.rebuildProjections });
  const { sessions, workspaces, gui, messages, usage, transcripts, fileHistory, turnIndex } = projections;
  const wire: WireContext = { place: (...at) => turnIndex.place(...at), cwd: (id) => sessions.get(id)?.cwd };
  // Readers that wait for a stream's events to be on disk (the snapshot's messages).
  const commits = new CommitWaits(journal);

  // This daemon among others on the home, and the stores that need no other part.
  const serverId = ids.next('srv');
  const startedAt = clock.now();
  const instances = new Instances({ home, serverId, primary, journal, sessions, workspaces, clock, log });
  const bus = new VolatileBus({ checker });
  const uploads = await UploadService.open({ home, journal, clock, ids, log });
  const auth = new AuthService({ home, config, clock, ids, log });
  const terminals = new TerminalService({ journal, options, clock, ids, log });
  const workspaceDirs = new WorkspaceDirs();
  const live = new LiveSessions();
  const clients = opts.replay?.clients ?? new ClientCache();
  const images = new ImagePipeline({ log, settings: () => config.current().image });

  // Tasks, approvals and questions: what tools wait on.
  const runtimes: LoadedRuntimes = new Map();
  const notes = new TaskNotifier({ journal, clock, ids, log });
  const tasks = new TaskService({ home, journal, bus, sessions, live, config, clock, ids, log, notes });
  const permissions = new PermissionService({ journal, sessions, live, config, clock, ids, log, workspaces });
  const questions = new QuestionService({ journal, sessions, live, clock, ids, log });

  // Plugins: their skills, MCP servers and hooks are read from the store's folder as each part needs them.
  const plugins = new PluginStore({ home, journal, clock, ids, log });
  await plugins.open();
  const hooks = new HookRunner({ home, config, journal, log });
  const capabilities = new CapabilityService({ home, journal, log, defs: CAPABILITIES });
  const pricing = await ModelPricing.load(SNAPSHOT_PATH).catch((err: unknown) => {
    log.warn({ err: (err as Error).message, path: SNAPSHOT_PATH }, 'model prices unreadable: usage total_cost_usd stays absent');
    return new ModelPricing(new Map());
  });

  // MCP servers (their OAuth redirect is this daemon's own loopback callback, known once it listens).
  let listeningOn = '';
  const redirectUrl = () => `${listeningOn}${MCP_OAUTH_CALLBACK_PATH}`;
  const grants = new GrantStore(home, clock);
  const mcp = new McpService({
    home, config, sessions, workspaces, workspaceDirs, questions, grants, log, reconnect: reconnectPolicyFromEnv(process.env), version: SERVER_VERSION, redirectUrl,
  });
  const mcpManagement = new McpManagement({ mcp, file: new UserMcpFile(home), grants, clock });
  // `[watch] enabled`: config.toml, the MCP config and local.toml reloaded when edited (src/config/watchers.ts).
  const configWatchers = new ConfigWatchers({ home, config, workspaces, mcp, log });
  configWatchers.sync();
  const mcpOAuth = new OAuthFlows({
    grants, ids, log, redirectUrl, clientName: () => config.current().identity.name,
    authorized: (key) => mcp.grantAuthorized(key), reset: (key) => mcp.grantReset(key),
  });

  // The tools, then the engine that runs them (its subagent launcher reaches the tools per call).
  const stamps = new ReadStamps();
  const agents = new AgentCatalog({ home, config, workspaces, log, knownTools: BUILTIN_TOOLS.map((t) => t.name) });
  const tools = new BuiltinToolExecutor({
    home, journal, bus, config, sessions, workspaces, workspaceDirs, live, tasks, questions, permissions, auth, log, external: mcp, hooks, fileHistory, replay: opts.replay?.tools,
    webFetch: webFetchLimitsFromEnv(process.env), stamps, agents,
  });
  const engine = new EngineRegistry({
    home, journal, bus, clock, ids, uploads, images, sessions, live, config, auth, log, clients, tools, tasks, runtimes, lifecycle: mcp, hooks, notes,
    ...(opts.retryBaseMs !== undefined ? { retryBaseMs: opts.retryBaseMs } : {}),
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
  const autoTitle = createAutoTitle({ journal, sessions, workspaces, instances, config, auth, clients, clock, log });

  // Startup recovery: what a previous run left open is settled before anything is served.
  await permissions.recover();
  await questions.recover();
  await engine.recoverInterrupted();

  // The transports: the hub, the routes, the HTTP server.
  const ban = newAuthBan(options.host);
  const access = accessPolicy(options);
  const shutdown = new AbortController();
  const liveTranscripts = new LiveTranscripts({ journal, clock, log }, coalesceMsFromEnv(process.env), undefined, liveTurnsFromEnv(process.env));
  liveTranscripts.retrimMs = liveRetrimMsFromEnv(process.env);
  const hub = new WsHub({ token, options, journal, liveTranscripts, wire, clock, ids, log, sessions, workspaces, instances, terminals }, ban, access);
  const services: Services = {
    home, serverId, version: SERVER_VERSION, startedAt, options, token, clock, ids, log, logTap, journal, bus, config, sessions, workspaces,
    gui, messages, usage, transcripts, liveTranscripts, wire, fileHistory, turnIndex, commits, instances, uploads, auth, terminals, workspaceDirs, live, clients, runtimes, notes, tasks, permissions,
    questions, tools, stamps, mcp, mcpManagement, configWatchers, mcpOAuth, plugins, agents, capabilities, pricing, engine, search, autoTitle,
    connections: () => hub.connections(),
    requestShutdown: () => shutdown.abort(),
  };
  // Goals that drive the loop: continuations go through the prompt intake like any prompt; a goal left active by the last run is paused.
  const goals = new GoalDriver({
    journal, sessions, engine, log, submit: (sid, text) => acceptPrompt(services, sid, { content: [{ type: 'text', text }] } as PromptInput, 'goal'),
  });
  await goals.recover();
  // Background work that ends while the agent is idle wakes it: the notes become a follow-up prompt (origin `task`).
  const wakeups = new TaskWakeups({
    notes, sessions, live, journal, engine, log,
    submit: (sid, f) => acceptPrompt(services, sid, { content: f.notes.flatMap((m) => m.content) } as PromptInput, { kind: 'task', taskIds: f.taskIds, metadata: followUpMetadata(f) }),
  });
  const koa = createHttpApp({ log, ids, token, options }, allRoutes(services), ban, access, checker);
  const server = http.createServer(koa.callback());
  server.keepAliveTimeout = 5_000;
  hub.attach(server);

  // Reactions to committed events (src/app/subscribers.ts) and to volatile publishes.
  const unsubscribe = registerSubscribers(journal, committedSubscribers({ commits, instances, terminals, wakeups, tasks, engine, hub, autoTitle, mcp, configWatchers, goals, hooks, search }), log);
  const unlistenVolatile = bus.subscribe(hub.publishVolatile);
  void search.start();

  const port = await listenWithRetry(server, options.host, options.port);
  const baseUrl = `http://${formatHost(options.host)}:${port}`;
  listeningOn = baseUrl;
  const instanceFile = await registerInstance(home, {
    server_id: serverId, pid: process.pid, host: options.host, port, started_at: startedAt.toISOString(), base_url: baseUrl, journal_slot: primary.id,
  });
  instances.start(baseUrl, opts.reconcileIntervalMs ?? (Number(process.env.SVC_CODE_RECONCILE_INTERVAL_MS) || DEFAULT_RECONCILE_MS));
  void instances.reconcile();

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    closing ??= (async () => {
      await instances.stop();
      configWatchers.close();
      questions.close();
      await engine.closeAll();
      mcpOAuth.close();
      await mcp.close();
      await terminals.closeAll();
      await tasks.closeAll();
      await notes.close();
      await auth.close();
      await hub.close();
      liveTranscripts.close();
      await autoTitle.stop();
      await search.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await config.close();
      await uploads.close();
      await journal.close();
      unlistenVolatile();
      unsubscribe();
      await rm(exportFile(slotsDir(home), primary.id), { force: true });
      await rm(instanceFile, { force: true });
      resolveClosed();
    })();
    return closing;
  };
  shutdown.signal.addEventListener('abort', () => void close(), { once: true });
  return { services, port, baseUrl, closed, close };
}
