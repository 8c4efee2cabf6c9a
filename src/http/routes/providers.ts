import { ModelDirectory } from '../../providers/catalog/directory.ts';
import type { Settings } from '../../app/settings.ts';
import { importCatalog } from '../../providers/catalog/import.ts';
import { listProviderItems, toProviderItem } from '../../providers/models/items.ts';
import { refreshAll, refreshOne, type RefreshDeps } from '../../providers/models/refresh.ts';
import { createProvider, removeProvider, updateProvider } from '../../providers/provider-config-commands.ts';
import { importRegistry } from '../../providers/catalog/registry.ts';
import { Codes } from '../../../protocol/codes.ts';
import { notFound } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import {
  ImportCatalogBody, ImportCatalogData, ImportRegistryBody, ImportRegistryData, ProviderCreateBody, ProviderDetail, ProviderIdParams, ProviderItem,
  ProviderList, ProviderUpdateBody, ProviderUpdateData, RefreshReport,
} from '../../../protocol/schemas/providers.ts';
import type { Logger } from '../../lib/logger.ts';

const tags = ['providers'];

export type ProviderRouteDeps = RefreshDeps & { log: Logger };

/**
 * This server's public model directory, shared by the provider refreshes and imports and the
 * catalog routes (catalog.ts); built once by the route index. Its URL and snapshot: `settings.modelDirectory`
 * (SVC_CODE_MODEL_DIRECTORY_URL, SVC_CODE_MODEL_DIRECTORY_SNAPSHOT).
 */
export function modelDirectory(deps: { log: Logger; settings: Pick<Settings, 'modelDirectory'> }): ModelDirectory {
  return new ModelDirectory({ ...deps.settings.modelDirectory, log: deps.log });
}

/** Core "Models and providers": provider CRUD, refreshes and imports (models: models.ts; the directory: catalog.ts). */
export function providerRoutes(deps: ProviderRouteDeps, dir: ModelDirectory): RouteDef[] {
  const providerById = (id: string) => {
    const c = deps.config.current();
    if (!c.providers[id]) throw notFound(Codes.PROVIDER_NOT_FOUND, 'provider', id);
    // A temporary provider's key comes from the environment, not from storage: never revealed.
    const key = c.providers[id].temporary ? undefined : c.providers[id].api_key;
    return { ...toProviderItem(c, id), ...(key ? { api_key: key } : {}) };
  };
  return [
    route({
      method: 'GET', path: '/api/v1/providers', operationId: 'listProviders', summary: 'Provider items (no keys)', tags,
      data: ProviderList,
      handler: () => ({ items: listProviderItems(deps.config.current()) }),
    }),
    route({
      method: 'POST', path: '/api/v1/providers', operationId: 'createProvider', summary: 'Add a provider; each model becomes alias id/model', tags,
      body: ProviderCreateBody, data: ProviderItem, codes: [Codes.VALIDATION, Codes.PROVIDER_ID_TAKEN], successStatus: 201,
      handler: ({ body }) => createProvider(deps, body),
    }),
    route({
      method: 'GET', path: '/api/v1/providers/{provider_id}', operationId: 'getProvider', summary: 'One provider; reveals its api_key when stored', tags,
      params: ProviderIdParams, data: ProviderDetail, codes: [Codes.PROVIDER_NOT_FOUND],
      handler: ({ params }) => providerById(params.provider_id),
    }),
    route({
      method: 'PUT', path: '/api/v1/providers/{provider_id}', operationId: 'updateProvider', summary: 'Replace a provider (rename with new_id; tri-state api_key)', tags,
      params: ProviderIdParams, body: ProviderUpdateBody, data: ProviderUpdateData,
      codes: [Codes.VALIDATION, Codes.PROVIDER_OAUTH_MANAGED, Codes.PROVIDER_NOT_FOUND, Codes.PROVIDER_ID_TAKEN],
      handler: async ({ params, body }) => ({ provider: await updateProvider(deps, params.provider_id, body) }),
    }),
    route({
      method: 'DELETE', path: '/api/v1/providers/{provider_id}', operationId: 'deleteProvider', summary: 'Delete a provider and its aliases (HTTP 204)', tags,
      params: ProviderIdParams, codes: [Codes.PROVIDER_OAUTH_MANAGED, Codes.PROVIDER_NOT_FOUND], successStatus: 204,
      handler: ({ params }) => removeProvider(deps, params.provider_id),
    }),
    route({
      method: 'POST', path: '/api/v1/providers/{provider_id}:refresh', operationId: 'refreshProvider', summary: 'Re-discover one provider\'s models', tags,
      params: ProviderIdParams, data: RefreshReport, codes: [Codes.VALIDATION, Codes.PROVIDER_NOT_FOUND],
      handler: ({ params }) => refreshOne(deps, dir, params.provider_id),
    }),
    route({
      method: 'POST', path: '/api/v1/providers:refresh', operationId: 'refreshProviders', summary: 'Re-discover every provider\'s models (body ignored)', tags,
      data: RefreshReport, codes: [Codes.VALIDATION],
      handler: () => refreshAll(deps, dir, false),
    }),
    route({
      method: 'POST', path: '/api/v1/providers:refresh_providers', operationId: 'refreshOAuthProviders', summary: 'Re-discover OAuth-backed providers\' models', tags,
      data: RefreshReport, codes: [Codes.VALIDATION],
      handler: () => refreshAll(deps, dir, true),
    }),
    route({
      method: 'POST', path: '/api/v1/providers:refresh_oauth', operationId: 'refreshOAuthProvidersAlias',
      summary: 'Alias of POST /api/v1/providers:refresh_providers (web clients, spec/clients.md E15)', tags,
      data: RefreshReport, codes: [Codes.VALIDATION],
      handler: () => refreshAll(deps, dir, true),
    }),
    route({
      method: 'POST', path: '/api/v1/providers:import_catalog', operationId: 'importCatalogProvider', summary: 'Import a model-directory entry as a provider', tags,
      body: ImportCatalogBody, data: ImportCatalogData, successStatus: 201,
      codes: [Codes.VALIDATION, Codes.PROVIDER_OAUTH_MANAGED, Codes.CATALOG_ENTRY_NOT_IMPORTABLE, Codes.CATALOG_ENTRY_NOT_FOUND, Codes.MODEL_DIRECTORY_UNAVAILABLE],
      handler: ({ body }) => importCatalog(deps, dir, body),
    }),
    route({
      method: 'POST', path: '/api/v1/providers:import_registry', operationId: 'importRegistryProviders', summary: 'Import every provider of a directory-shaped registry', tags,
      body: ImportRegistryBody, data: ImportRegistryData, successStatus: 201,
      codes: [Codes.VALIDATION, Codes.PROVIDER_OAUTH_MANAGED, Codes.REGISTRY_UNUSABLE],
      handler: ({ body }) => importRegistry(deps, body.url, body.api_key),
    }),
  ];
}
