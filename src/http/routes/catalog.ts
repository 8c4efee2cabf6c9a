import type { ModelDirectory } from '../../providers/catalog/directory.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { CatalogEntry, CatalogIdParams, CatalogList } from '../../../protocol/schemas/providers.ts';

const tags = ['catalog'];

/** Core "GET /api/v1/catalog/providers[/{catalog_id}]": the proxied public model directory (`modelDirectory` of providers.ts). */
export function catalogRoutes(dir: ModelDirectory): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/catalog/providers', operationId: 'listCatalogProviders', summary: 'Public model directory (10-minute cache, snapshot fallback)', tags,
      data: CatalogList, codes: [Codes.MODEL_DIRECTORY_UNAVAILABLE],
      handler: async () => ({ items: await dir.list() }),
    }),
    route({
      method: 'GET', path: '/api/v1/catalog/providers/{catalog_id}', operationId: 'getCatalogProvider', summary: 'One model-directory entry', tags,
      params: CatalogIdParams, data: CatalogEntry, codes: [Codes.CATALOG_ENTRY_NOT_FOUND, Codes.MODEL_DIRECTORY_UNAVAILABLE],
      handler: ({ params }) => dir.get(params.catalog_id),
    }),
  ];
}
