import http from 'node:http';
import type { ContractChecker } from '../../../protocol/contract-check.ts';
import type { SessionLogTap } from '../../archive/log-tap.ts';
import { createHttpApp, newAuthBan } from '../../http/app.ts';
import { forwardMiddleware } from '../../http/forward.ts';
import type { RouteDef } from '../../http/route.ts';
import { allRoutes, type RouteDeps } from '../../http/routes/index.ts';
import { accessPolicy } from '../../../protocol/access/host.ts';
import { LiveTranscripts } from '../../../projections/transcript/live/live-transcripts.ts';
import { WsHub, type WsHubDeps } from '../../ws/hub.ts';
import { TranscriptPacing } from '../../ws/transcript/pacing.ts';
import type { Core } from '../core.ts';
import type { ServeOptions } from '../options.ts';
import { SERVER_VERSION } from '../version.ts';
import type { DaemonParts } from './daemon.ts';

/** What the transports are built on: the engine, the daemon's parts, and the daemon's token and options. */
export type TransportInput = Core & DaemonParts & {
  /** The bearer token every request and upgrade carries. */
  token: string;
  options: ServeOptions;
  /** The recent log lines of each session (session exports). */
  logTap: SessionLogTap;
};

/** Phase 5: the WebSocket hub, the routes and the HTTP server (not listening yet). */
export interface Transport {
  /** The live transcript folds: ops, batch counters, the op journal (projections/transcript/live/). */
  liveTranscripts: LiveTranscripts;
  /** Their one listener: paces the batches, appends each once (its seq), hands it to the hub (src/ws/transcript/pacing.ts). */
  transcriptPacing: TranscriptPacing;
  hub: WsHub;
  /** Every route of the server, as declared (the served /openapi.json is generated from them). */
  routes: RouteDef[];
  server: http.Server;
  /** Aborted when a client asks the server to stop (POST /api/v1/shutdown). */
  shutdown: AbortSignal;
}

/** Builds the hub, gives each route factory its declared part (src/http/routes/index.ts), and the HTTP server. */
export function buildTransport(p: TransportInput, checker?: ContractChecker): Transport {
  const { options, token, journal, clock, ids, log, settings, tracer } = p;
  const ban = newAuthBan(options.host);
  const access = accessPolicy(options, settings.access);
  const shutdown = new AbortController();
  // The live transcripts and their pacing: constructed and wired here only.
  const liveTranscripts = new LiveTranscripts({ journal, clock, log, liveTurns: settings.live.turns, retrimMs: settings.live.retrimMs });
  const transcriptPacing = new TranscriptPacing({ live: liveTranscripts, log, coalesceMs: settings.ws.coalesceMs });
  const hub = new WsHub(wsHubDeps({ ...p, liveTranscripts, transcriptPacing }), ban, access);
  const deps: RouteDeps = {
    ...p, version: SERVER_VERSION, liveTranscripts,
    connections: () => hub.connections(),
    requestShutdown: () => shutdown.abort(),
  };
  const routes = allRoutes(deps);
  // PostgreSQL: a command for a session another node owns runs there (docs/scale-out.md "Commands on any node").
  const forward = p.nodes && forwardMiddleware({ nodeId: p.nodeId, owners: p.owners, nodes: p.nodes, routes, log });
  const koa = createHttpApp({ log, ids, token, tracer, options, forward }, routes, ban, access, checker);
  const server = http.createServer(koa.callback());
  server.keepAliveTimeout = 5_000;
  hub.attach(server);
  return { liveTranscripts, transcriptPacing, hub, routes, server, shutdown: shutdown.signal };
}

/** What a hub is built from: the transports' input and the live transcripts with their pacing (the test facade builds a second hub from it). */
export function wsHubDeps(p: TransportInput & Pick<Transport, 'liveTranscripts' | 'transcriptPacing'>): WsHubDeps {
  const { options, token, journal, clock, ids, log, settings, liveTranscripts, transcriptPacing } = p;
  return {
    token, options, journal, liveTranscripts, transcriptPacing, wsSettings: settings.ws, wire: p.wire, clock, ids, log,
    sessions: p.sessions, workspaces: p.workspaces, instances: p.instances, terminals: p.terminals,
  };
}
