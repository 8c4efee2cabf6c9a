import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { ProviderCreate, ProviderUpdate } from '../../protocol/schemas/providers.ts';
import { toProviderItem, type ProviderItem } from './models/items.ts';
import { writeCatalog, type CatalogWriteDeps } from './models/write.ts';
import {
  aliasOf, aliasesOf, cascadePool, checkProviderSpec, deleteProvider, migratePointers, refuseOAuth, requireStored, seedDefaultModel, tablesOf, writeProvider,
} from './provider-config.ts';

const taken = (id: string) => new ApiError(Codes.PROVIDER_ID_TAKEN, `provider id exists: ${id}`, { details: { id } });
const isTemporary = (deps: CatalogWriteDeps, id: string) => deps.config.current().providers[id]?.temporary === true;

/** POST /api/v1/providers. */
export async function createProvider(deps: CatalogWriteDeps, body: ProviderCreate): Promise<ProviderItem> {
  checkProviderSpec(body);
  await writeCatalog(deps, 'provider.created', (doc) => {
    if (tablesOf(doc, 'providers')[body.id] || isTemporary(deps, body.id)) throw taken(body.id);
    writeProvider(doc, { ...body, api_key: body.api_key || undefined });
    seedDefaultModel(doc, aliasOf(body.id, body.default_model ?? body.models[0].model));
  });
  return toProviderItem(deps.config.current(), body.id);
}

/** PUT /api/v1/providers/{provider_id}: replace, rebuild aliases, optionally rename with migration. */
export async function updateProvider(deps: CatalogWriteDeps, id: string, body: ProviderUpdate): Promise<ProviderItem> {
  const newId = body.new_id ?? id;
  checkProviderSpec({ ...body, id: newId }, 'new_id');
  await writeCatalog(deps, 'provider.updated', (doc) => {
    requireStored(doc, id, isTemporary(deps, id));
    refuseOAuth(doc, id);
    if (newId !== id && (tablesOf(doc, 'providers')[newId] || isTemporary(deps, newId))) throw taken(newId);
    const before = aliasesOf(doc, id);
    const moved = writeProvider(doc, { id: newId, type: body.type, base_url: body.base_url, default_model: body.default_model, api_key: body.api_key, models: body.models }, id);
    migratePointers(doc, id, newId, moved);
    cascadePool(doc, moved, new Set(before.filter((a) => !moved.has(a))));
  });
  return toProviderItem(deps.config.current(), newId);
}

/** DELETE /api/v1/providers/{provider_id}. */
export async function removeProvider(deps: CatalogWriteDeps, id: string): Promise<void> {
  await writeCatalog(deps, 'provider.deleted', (doc) => {
    requireStored(doc, id, isTemporary(deps, id));
    refuseOAuth(doc, id);
    deleteProvider(doc, id);
  });
}
