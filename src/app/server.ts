import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm } from 'node:fs/promises';
import { monotonicFactory } from 'ulid';
import { claimSlots, exportFile, slotsDir } from '../../journal/slots.ts';
import { GuiStore } from '../../projections/gui-store/gui-store.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { MessageLog } from '../../projections/messages/message-log.ts';
import { UsageProjection } from '../../projections/usage/session-usage.ts';
import { SessionIndex } from '../../projections/session-index/session-index.ts';
import { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import { ConfigService } from '../config/service.ts';
import { createHttpApp, newAuthBan } from '../http/app.ts';
import { accessPolicy } from '../protocol/access/host.ts';
import { allRoutes } from '../http/routes/index.ts';
import { LiveSessions } from '../sessions/live.ts';
import { TerminalService } from '../terminals/service.ts';
import { TaskService } from '../tasks/service.ts';
import { WorkspaceDirs } from '../workspaces/extra-dirs.ts';
import { WsHub } from '../ws/hub.ts';
import { UploadService } from '../uploads/service.ts';
import { createAutoTitle } from '../engine/auto-title.ts';
import { AuthService } from '../auth/service.ts';
import { EngineRegistry } from '../engine/runtime-registry.ts';
import { ClientCache } from '../engine/model-resolve.ts';
import { BuiltinToolExecutor } from '../tools/executor.ts';
import { PermissionService } from '../permissions/service.ts';
import { QuestionService } from '../questions/service.ts';
import type { ContractChecker } from '../protocol/contract-check.ts';
import { EventJournal } from '../events/journal.ts';
import type { AppContext } from './context.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { ulidIds, type Ids } from '../lib/ids.ts';
import { VolatileBus } from '../events/volatile-bus.ts';
import { loadOrCreateToken, registerInstance } from './home.ts';
import { Instances, importSlot } from './instances.ts';
import { createLogger, type Logger } from './logger.ts';
import { PORT_TRIES, type ServeOptions } from './options.ts';
import { SERVER_VERSION } from './version.ts';

export interface StartOptions {
  home: string;
  options: ServeOptions;
  log?: Logger;
  clock?: Clock;
  /** The id source (tests may pass a deterministic one). */
  ids?: Ids;
  /** How often to reconcile with other daemons on the same home (ms; 0 = never). */
  reconcileIntervalMs?: number;
  /** Test runs: every appended and published event is checked against the registry (docs/events.md). */
  checker?: ContractChecker;
}

const DEFAULT_RECONCILE_MS = 30_000;

export interface RunningServer {
  app: AppContext;
  port: number;
  baseUrl: string;
  /** Resolves when the server has fully stopped. */
  closed: Promise<void>;
  close(): Promise<void>;
}

const nextUlid = monotonicFactory();

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

/** Wires every part together and starts listening. */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const { home, options } = opts;
  const log = opts.log ?? createLogger();
  await mkdir(home, { recursive: true });
  const token = await loadOrCreateToken(home);
  const config = await ConfigService.load(home, log);
  const { primary, adoptable } = await claimSlots(home);
  const { checker } = opts;
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? ulidIds();
  const bus = new VolatileBus({ checker });
  const journal = new EventJournal({ db: primary.db, clock, newEpoch: ids.ulid, sync: process.env.SVC_CODE_JOURNAL_FSYNC === '1', checker });
  await journal.load();
  config.attach(journal);
  const sessions = new SessionIndex();
  const workspaces = new WorkspaceRegistry();
  const gui = new GuiStore();
  const messages = new MessageLog(journal.db);
  const usage = new UsageProjection();
  const runner = new ProjectionRunner(journal, [sessions, workspaces, gui, messages, usage]);
  await runner.start({ forceRebuild: options.rebuildProjections });
  for (const slot of adoptable) await importSlot(journal, slot, log);
  const serverId = `srv_${nextUlid()}`;
  const instances = new Instances({ home, serverId, primary, journal, sessions, workspaces, clock, log });
  journal.on('committed', instances.onCommitted);
  const uploads = await UploadService.open({ home, journal, clock, ids, log });
  const terminals = new TerminalService({ journal, log, options, clock, ids });
  journal.on('committed', terminals.onCommitted);
  let hub: WsHub | undefined;
  let stop: () => void = () => {};
  const app: AppContext = {
    home, serverId, version: SERVER_VERSION, startedAt: new Date(), options, token,
    clock, ids, bus, clients: new ClientCache(),
    log, journal, sessions, messages, usage, workspaces, workspaceDirs: new WorkspaceDirs(), gui, live: new LiveSessions(), config, instances, uploads,
    auth: new AuthService({ home, config, log, clock, ids }),
    terminals,
    engine: undefined as unknown as EngineRegistry,
    tasks: undefined as unknown as TaskService,
    permissions: undefined as unknown as PermissionService,
    questions: undefined as unknown as QuestionService,
    connections: () => hub?.connections() ?? [],
    publishVolatile: (sessionId, type, payload, offset) => bus.publish(sessionId, type, payload, offset),
    requestShutdown: () => stop(),
  };
  app.tasks = new TaskService(app);
  app.engine = new EngineRegistry(app, new BuiltinToolExecutor(app));
  app.permissions = new PermissionService(app);
  await app.permissions.recover();
  app.questions = new QuestionService(app);
  await app.questions.recover();
  await app.engine.recoverInterrupted();
  const ban = newAuthBan(options.host);
  const access = accessPolicy(options);
  const koa = createHttpApp(app, allRoutes(app), ban, access, checker);
  const server = http.createServer(koa.callback());
  server.keepAliveTimeout = 5_000;
  hub = new WsHub(app, ban, access);
  hub.attach(server);
  bus.subscribe((sessionId, type, payload, offset) => hub?.publishVolatile(sessionId, type, payload, offset));
  const autoTitle = createAutoTitle(app);
  journal.on('committed', autoTitle.onCommitted);
  const port = await listenWithRetry(server, options.host, options.port);
  const baseUrl = `http://${formatHost(options.host)}:${port}`;
  const instanceFile = await registerInstance(home, {
    server_id: serverId, pid: process.pid, host: options.host, port, started_at: app.startedAt.toISOString(), base_url: baseUrl, journal_slot: primary.id,
  });
  instances.start(baseUrl, opts.reconcileIntervalMs ?? (Number(process.env.SVC_CODE_RECONCILE_INTERVAL_MS) || DEFAULT_RECONCILE_MS));
  void instances.reconcile();

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    closing ??= (async () => {
      await instances.stop();
      app.questions.close();
      await app.engine.closeAll();
      await app.terminals.closeAll();
      await app.tasks.closeAll();
      await app.auth.close();
      await hub?.close();
      await autoTitle.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await config.close();
      await uploads.close();
      await journal.close();
      await rm(exportFile(slotsDir(home), primary.id), { force: true });
      await rm(instanceFile, { force: true });
      resolveClosed();
    })();
    return closing;
  };
  stop = () => void close();
  return { app, port, baseUrl, closed, close };
}
