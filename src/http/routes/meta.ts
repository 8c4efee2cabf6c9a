import * as v from 'valibot';
import type { AppContext } from '../../app/context.ts';
import { isLoopbackHost } from '../../app/options.ts';
import { route, type RouteDef } from '../route.ts';
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

/** Server and metadata (Core "Server and metadata") and the served specs. */
export function metaRoutes(app: AppContext, all: () => RouteDef[]): RouteDef[] {
  const routes: RouteDef[] = [
    route({
      method: 'GET', path: '/api/v1/healthz', operationId: 'healthz', summary: 'Liveness', tags: ['server'], auth: false,
      data: v.object({ ok: v.literal(true) }),
      handler: () => ({ ok: true }),
    }),
    route({
      method: 'GET', path: '/api/v1/meta', operationId: 'getMeta', summary: 'Server metadata', tags: ['server'], data: MetaData,
      handler: () => {
        const data: Record<string, unknown> = {
          server_version: app.version,
          capabilities: { websocket: true, file_upload: true, fs_query: true, mcp: true, tasks: true, terminal: true },
          server_id: app.serverId,
          started_at: app.startedAt.toISOString(),
          open_in_apps: [],
          dangerous_bypass_auth: app.options.dangerousBypassAuth,
          backend: 'v2',
        };
        if (app.options.webTitle) data.web_title = app.options.webTitle;
        data.experimental_flags = app.config.experimentalFlags();
        data.features = [];
        return data;
      },
    }),
    route({
      method: 'GET', path: '/openapi.json', operationId: 'getOpenApi', summary: 'OpenAPI document of this server', tags: ['server'], raw: true,
      handler: ({ ctx }) => {
        ctx.body = buildOpenApi(all(), app.version);
      },
    }),
    route({
      method: 'GET', path: '/asyncapi.json', operationId: 'getAsyncApi', summary: 'AsyncAPI document of the WebSocket stream', tags: ['server'], raw: true,
      handler: ({ ctx }) => {
        ctx.body = buildAsyncApi(app.version);
      },
    }),
  ];
  if (isLoopbackHost(app.options.host) || app.options.allowRemoteShutdown) {
    routes.push(
      route({
        method: 'POST', path: '/api/v1/shutdown', operationId: 'shutdown', summary: 'Graceful shutdown (replies first)', tags: ['server'],
        data: v.object({ ok: v.literal(true) }),
        handler: ({ ctx }) => {
          ctx.res.once('finish', () => setImmediate(() => app.requestShutdown()));
          return { ok: true };
        },
      }),
    );
  }
  return routes;
}
