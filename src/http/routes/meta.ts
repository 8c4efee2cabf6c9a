import * as v from 'valibot';
import { isLoopbackHost, type ServeOptions } from '../../app/options.ts';
import type { ConfigService } from '../../config/service.ts';
import { route, type RouteDef } from '../route.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { buildOpenApi } from '../openapi.ts';
import { buildAsyncApi } from '../../ws/asyncapi.ts';

export const MetaData = v.object({
  server_version: v.string(),
  capabilities: v.object({
    websocket: v.boolean(), file_upload: v.boolean(), fs_query: v.boolean(), mcp: v.boolean(), tasks: v.boolean(), terminal: v.boolean(),
  }),
  server_id: v.string(),
  started_at: v.string(),
  open_in_apps: v.array(v.string()),
  dangerous_bypass_auth: v.boolean(),
  backend: v.picklist(['v1', 'v2']),
  web_title: v.optional(v.string()),
  experimental_flags: v.record(v.string(), v.boolean()),
  features: v.array(v.object({ name: v.string(), state: v.string(), meta: v.unknown() })),
});

/** Who this server is, its options and config, and how to ask it to stop. */
export interface MetaRouteDeps {
  version: string;
  serverId: string;
  startedAt: Date;
  options: Pick<ServeOptions, 'dangerousBypassAuth' | 'webTitle' | 'host' | 'allowRemoteShutdown'>;
  config: ConfigService;
  /** Asks the server to stop (POST /api/v1/shutdown). */
  requestShutdown(): void;
  /** Whether the journal still takes writes (healthz says when it does not). */
  journal: { readonly failure: Error | null };
}

/** Server and metadata (Core "Server and metadata") and the served specs. */
export function metaRoutes(deps: MetaRouteDeps, all: () => RouteDef[]): RouteDef[] {
  const routes: RouteDef[] = [
    route({
      method: 'GET', path: '/api/v1/healthz', operationId: 'healthz', tags: ['server'], auth: false,
      summary: 'Liveness: 50003 {reason: journal_store_failed} once the journal has failed (no write is taken until a restart)',
      data: v.object({ ok: v.literal(true) }), codes: [Codes.PERSISTENCE],
      handler: () => {
        if (deps.journal.failure) throw journalFailed();
        return { ok: true };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/meta', operationId: 'getMeta', summary: 'Server metadata', tags: ['server'], data: MetaData,
      handler: () => {
        const data: Record<string, unknown> = {
          server_version: deps.version,
          capabilities: { websocket: true, file_upload: true, fs_query: true, mcp: true, tasks: true, terminal: true },
          server_id: deps.serverId,
          started_at: deps.startedAt.toISOString(),
          open_in_apps: [],
          dangerous_bypass_auth: deps.options.dangerousBypassAuth,
          backend: 'v2',
        };
        if (deps.options.webTitle) data.web_title = deps.options.webTitle;
        data.experimental_flags = deps.config.experimentalFlags();
        data.features = [];
        return data;
      },
    }),
    route({
      method: 'GET', path: '/openapi.json', operationId: 'getOpenApi', summary: 'OpenAPI document of this server', tags: ['server'], raw: true,
      handler: ({ ctx }) => {
        ctx.body = buildOpenApi(all(), deps.version);
      },
    }),
    route({
      method: 'GET', path: '/asyncapi.json', operationId: 'getAsyncApi', summary: 'AsyncAPI document of the WebSocket stream', tags: ['server'], raw: true,
      handler: ({ ctx }) => {
        ctx.body = buildAsyncApi(deps.version);
      },
    }),
  ];
  if (isLoopbackHost(deps.options.host) || deps.options.allowRemoteShutdown) {
    routes.push(
      route({
        method: 'POST', path: '/api/v1/shutdown', operationId: 'shutdown', summary: 'Graceful shutdown (replies first)', tags: ['server'],
        data: v.object({ ok: v.literal(true) }),
        handler: ({ ctx }) => {
          ctx.res.once('finish', () => setImmediate(() => deps.requestShutdown()));
          return { ok: true };
        },
      }),
    );
  }
  return routes;
}

/**
 * The daemon is up but its journal failed: it serves reads, takes no write (PostgreSQL: `serve` starts again). The
 * store's error (a path, a database host) is in the log, not in this answer, which needs no token.
 */
function journalFailed(): ApiError {
  return new ApiError(Codes.PERSISTENCE, 'the journal has failed and takes no write until the daemon restarts (its error is in the log)', {
    details: { reason: 'journal_store_failed' },
  });
}
