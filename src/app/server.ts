import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm } from 'node:fs/promises';
import type { ContractChecker } from '../../protocol/contract-check.ts';
import { MCP_OAUTH_CALLBACK_PATH } from '../http/routes/mcp-auth.ts';
import type { ClientCache } from '../engine/model-resolve.ts';
import type { ToolReplay } from '../tools/executor.ts';
import type { OwnerLookup } from '../nodes/types.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { SessionLogTap, tappedLogger } from '../archive/log-tap.ts';
import { startCore, type Core } from './core.ts';
import { settleLeftOpen } from '../nodes/settlement.ts';
import { VolatileRelay } from '../nodes/volatile-relay.ts';
import { loadOrCreateToken, registerInstance } from './home.ts';
import { PORT_TRIES, type ServeOptions } from './options.ts';
import { committedSubscribers, registerSubscribers } from './subscribers.ts';
import { buildDaemonParts, type DaemonParts } from './phases/daemon.ts';
import { buildTransport, type Transport, type TransportInput } from './phases/transport.ts';
import type { Settings } from './settings.ts';
import { SERVER_VERSION } from './version.ts';

export interface StartOptions {
  home: string;
  options: ServeOptions;
  /** What the environment said, read once at the edge (src/app/settings.ts): the CLI, the test helper, the benches. */
  settings: Settings;
  log?: Logger;
  /** Stamps every time the daemon records (tests pass one they move). */
  clock?: Clock;
  /** Mints every id (tests may pass a deterministic one). */
  ids?: Ids;
  /** Test runs: every appended and published event is checked against the registry (docs/events.md). */
  checker?: ContractChecker;
  /** `svc-code replay`: model clients that serve recorded answers, and tool calls answered from the record (docs/replay.md). */
  replay?: { clients: ClientCache; tools?: ToolReplay };
  /**
   * PostgreSQL nodes: which node owns each session; a command for a session owned elsewhere is forwarded there
   * (docs/scale-out.md "Commands on any node"). Default: the session leases (src/nodes/leases.ts); tests pass a stub.
   */
  owners?: OwnerLookup;
}

/**
 * What startServer built, by phase: the engine (src/app/core.ts), the daemon's parts, the transports. No module
 * takes it whole: each route factory, the hub, the prompt intake and the goal driver are typed with their own part.
 * The CLI (version, token), `svc-code replay`, the benches and the test facade (test/helpers/server.ts) read it.
 */
export type ServerParts = TransportInput & Omit<Transport, 'server' | 'shutdown'> & { version: string };

export interface RunningServer {
  parts: ServerParts;
  port: number;
  baseUrl: string;
  /** Resolves when the server has fully stopped. */
  closed: Promise<void>;
  close(): Promise<void>;
  /** Whether a stop was asked (a signal, POST /shutdown): a failure that comes while stopping is not restarted. */
  closing(): boolean;
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
 * The composition root: the phases in dependency order (docs/architecture.md "Wiring"): the token, the engine
 * (storage, read models, engine: startCore), the daemon's parts, the transports; then the reactions to committed
 * events are registered and the server listens.
 */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const { home, options, checker } = opts;
  // Every line also goes to the tap, which keeps each session's recent lines for its export.
  const logTap = new SessionLogTap();
  const log = tappedLogger(opts.log ?? createLogger(opts.settings.logLevel), logTap);
  for (const warning of opts.settings.warnings) log.warn(warning);
  // MCP OAuth redirects come back to this daemon's own loopback callback, known once it listens.
  let listeningOn = '';
  const redirectUrl = () => `${listeningOn}${MCP_OAUTH_CALLBACK_PATH}`;
  const core = await startDaemonCore(opts, log, redirectUrl);
  const daemon = await buildDaemonParts(core.core, { options, redirectUrl, owners: opts.owners });
  const input: TransportInput = { ...core.core, ...daemon, token: core.token, options, logTap };
  const transport = buildTransport(input, checker);
  const { hub, server, liveTranscripts } = transport;

  // Reactions to committed events (src/app/subscribers.ts) and to volatile publishes.
  const { journal, bus, instances } = input;
  const unsubscribe = registerSubscribers(journal, committedSubscribers({ ...input, hub, liveTranscripts }), log);
  // The live transcripts first: a delta's ops leave no later than its legacy frame.
  const unlistenLive = bus.subscribe(liveTranscripts.onVolatile);
  const unlistenVolatile = bus.subscribe(hub.publishVolatile);
  void daemon.search.start();
  // PostgreSQL: the other nodes' commits reach the projections and the reactions above (docs/scale-out.md).
  const follower = input.follow?.({ log, intervalMs: opts.settings.followIntervalMs });
  // PostgreSQL: the turns run on other nodes stream here too (their deltas, progress and task output); this node's
  // stream out only while the directory knows another node alive.
  const peers = daemon.nodes;
  const relay = input.sharedJournalUrl && peers ? new VolatileRelay({ url: input.sharedJournalUrl, nodeId: input.nodeId, bus, journal, log, peers }) : undefined;
  // PostgreSQL: the sessions of a node that died are taken over once their leases expire (docs/scale-out.md "Leases").
  input.keeper?.takeOver({ catchUp: () => journal.catchUp(), settle: async (id) => { await settleLeftOpen(input, id, 'takeover'); } });

  const port = await listenWithRetry(server, options.host, options.port);
  const baseUrl = `http://${formatHost(options.host)}:${port}`;
  listeningOn = baseUrl;
  const instanceFile = await registerInstance(home, {
    server_id: input.serverId, pid: process.pid, host: options.host, port, started_at: input.startedAt.toISOString(), base_url: baseUrl, journal_slot: input.primary.id,
  });
  instances.start(baseUrl, opts.settings.reconcileIntervalMs);
  void instances.reconcile();
  // PostgreSQL: the other nodes reach this one at its URL from now on (docs/scale-out.md).
  await daemon.nodes?.start(opts.settings.nodeUrl ?? `http://127.0.0.1:${port}`);

  const stop = stopper(input, transport, async () => {
    await input.keeper?.stopTakingOver();
    await relay?.stop();
    await daemon.nodes?.stop();
    await follower?.stop();
  }, async () => {
    unlistenVolatile();
    unlistenLive();
    unsubscribe();
    await rm(instanceFile, { force: true });
  });
  transport.shutdown.addEventListener('abort', () => void stop.close(), { once: true });
  const { server: _server, shutdown: _shutdown, ...reach } = transport;
  return { parts: { ...input, ...reach, version: SERVER_VERSION }, port, baseUrl, closed: stop.closed, close: stop.close, closing: stop.closing };
}

/** The daemon's storage adds the token to the core's; the engine on the home's journal is shared with print mode. */
async function startDaemonCore(opts: StartOptions, log: Logger, redirectUrl: () => string): Promise<{ token: string; core: Core }> {
  const { home, options } = opts;
  await mkdir(home, { recursive: true });
  const token = await loadOrCreateToken(home, opts.settings.serverToken);
  const core = await startCore({
    home, log, settings: opts.settings, clock: opts.clock, ids: opts.ids, checker: opts.checker, rebuildProjections: options.rebuildProjections, journalUrl: options.journalUrl,
    replay: opts.replay, mcpRedirectUrl: redirectUrl,
  });
  return { token, core };
}

/**
 * The daemon's stop, once however often asked. Not the phases in reverse: what still appends stops before what reads
 * the journal, and the stores close last. In order: this node's row in `journal_nodes` (PostgreSQL: the other nodes
 * stop forwarding commands here) and the journal follower (no other node's commit arrives any more); config watchers
 * (no reload starts work); the engine's work (turns, MCP, tasks: core's `stopWork`); OAuth flows and terminals (a
 * terminal's exit is journaled); the hub, then the live transcripts' pacing and folds (no client is left to receive a
 * batch); auto titles and the search index (they react to the last commits); the HTTP server; the stores (core's
 * `closeStores`, the journal among them); then `last`: the reactions unregistered, the instance file removed.
 */
function stopper(p: Core & DaemonParts, t: Transport, first: () => Promise<void>, last: () => Promise<void>): { closed: Promise<void>; close(): Promise<void>; closing(): boolean } {
  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const close = () => {
    closing ??= (async () => {
      await first();
      p.configWatchers.close();
      await p.stopWork();
      p.mcpOAuth.close();
      await p.terminals.closeAll();
      await t.hub.close();
      t.transcriptPacing.close();
      t.liveTranscripts.close();
      await p.autoTitle.stop();
      await p.search.close();
      await new Promise<void>((resolve) => {
        t.server.close(() => resolve());
        t.server.closeAllConnections();
      });
      await p.closeStores();
      await last();
      resolveClosed();
    })();
    return closing;
  };
  return { closed, close, closing: () => closing !== undefined };
}
