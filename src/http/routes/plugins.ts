import { Codes } from '../../../protocol/codes.ts';
import { MarketplaceList, PluginActionResult, PluginIdParams, PluginInstallBody, PluginList, PluginSummary } from '../../../protocol/schemas/plugins.ts';
import { marketplace, type MarketplaceDeps } from '../../plugins/marketplace.ts';
import type { PluginStore } from '../../plugins/store.ts';
import { route, type RouteDef } from '../route.ts';

export interface PluginRouteDeps extends MarketplaceDeps {
  plugins: Pick<PluginStore, 'list' | 'install' | 'setEnabled' | 'remove' | 'allowsLoopbackHttp'>;
}

/** Part B "Capabilities and plugins": installed plugins (docs/plugins.md). */
export function pluginRoutes(deps: PluginRouteDeps): RouteDef[] {
  const tags = ['plugins'];
  const codes = [Codes.VALIDATION, Codes.PLUGIN_NOT_INSTALLED];
  return [
    route({
      method: 'GET', path: '/api/v1/plugins', operationId: 'listPlugins', tags, summary: 'Installed plugins, by id',
      data: PluginList,
      handler: async () => ({ plugins: await deps.plugins.list() }),
    }),
    route({
      method: 'GET', path: '/api/v1/plugins/marketplace', operationId: 'listMarketplace', tags,
      summary: 'The catalog from [plugins] marketplace_url, fetched per request (10 s timeout, 50001 on failure), merged with install state and the built-in capabilities',
      data: MarketplaceList, codes: [Codes.INTERNAL],
      handler: async () => ({ entries: await marketplace(deps) }),
    }),
    route({
      method: 'POST', path: '/api/v1/plugins', operationId: 'installPlugin', tags,
      summary: 'Install (or replace) a plugin from an absolute local path, an http(s) zip URL or a repository URL fetched with git; '
        + 'atomic: a failed install leaves nothing behind',
      body: PluginInstallBody, data: PluginSummary, codes: [Codes.VALIDATION, Codes.PATH_NOT_FOUND],
      handler: ({ body }) => deps.plugins.install(body.source),
    }),
    route({
      method: 'POST', path: '/api/v1/plugins/{plugin_id}:enable', operationId: 'enablePlugin', tags,
      summary: 'Enable a plugin: its skills, MCP servers, hooks and commands join', params: PluginIdParams, data: PluginActionResult, codes,
      handler: async ({ params }) => {
        await deps.plugins.setEnabled(params.plugin_id, true);
        return { ok: true as const };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/plugins/{plugin_id}:disable', operationId: 'disablePlugin', tags,
      summary: 'Disable a plugin: it contributes nothing until enabled again', params: PluginIdParams, data: PluginActionResult, codes,
      handler: async ({ params }) => {
        await deps.plugins.setEnabled(params.plugin_id, false);
        return { ok: true as const };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/plugins/{plugin_id}:remove', operationId: 'removePlugin', tags,
      summary: 'Remove a plugin: its folder and install record are deleted', params: PluginIdParams, data: PluginActionResult, codes,
      handler: async ({ params }) => {
        await deps.plugins.remove(params.plugin_id);
        return { ok: true as const };
      },
    }),
  ];
}
