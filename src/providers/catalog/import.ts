import { Codes } from '../../../protocol/codes.ts';
import { ApiError, validationError } from '../../../protocol/errors.ts';
import type { CatalogEntry, ModelDirectory } from './directory.ts';
import { toProviderItem, type ProviderItem } from '../models/items.ts';
import { writeCatalog, type CatalogWriteDeps } from '../models/write.ts';
import { aliasesOf, baseUrlProblem, cascadePool, PROVIDER_ID, refuseOAuth, seedDefaultModel, tablesOf, writeProvider, aliasOf, type ModelEntry } from '../provider-config.ts';

export interface ImportCatalogInput {
  catalog_id: string;
  id?: string;
  api_key?: string;
  base_url?: string;
}

const notImportable = (id: string, message: string) => new ApiError(Codes.CATALOG_ENTRY_NOT_IMPORTABLE, `catalog entry ${id}: ${message}`, { details: { catalog_id: id } });

/** A directory entry's models as provider model entries. */
export function entryModels(e: CatalogEntry): ModelEntry[] {
  return e.models.map((m) => JSON.parse(JSON.stringify({ model: m.id, max_context_size: m.max_context_size, display_name: m.name, capabilities: m.capabilities })));
}

/** 40004 reasons of Core: rejected, needs a base_url, no importable models, unusable id. */
export function checkImportable(e: CatalogEntry, localId: string, baseUrl?: string): void {
  if (e.rejected || !e.wire_type) throw notImportable(e.id, `rejected${e.reject_reason ? ` (${e.reject_reason})` : ''}`);
  if (!baseUrl && !e.base_url) throw notImportable(e.id, 'needs a base_url');
  if (!e.models.length) throw notImportable(e.id, 'has no importable models');
  if (!PROVIDER_ID.test(localId)) throw notImportable(e.id, `unusable provider id "${localId}"`);
}

/** POST /api/v1/providers:import_catalog: one directory entry becomes (or refreshes) a provider. */
export async function importCatalog(deps: CatalogWriteDeps, dir: ModelDirectory, body: ImportCatalogInput): Promise<{ provider: ProviderItem; models_imported: number }> {
  const entry = await dir.get(body.catalog_id);
  const id = body.id ?? entry.id;
  const bad = body.base_url !== undefined ? baseUrlProblem(body.base_url) : undefined;
  if (bad) throw validationError([{ field: 'base_url', message: bad }]);
  checkImportable(entry, id, body.base_url);
  const models = entryModels(entry);
  await writeCatalog(deps, 'import_catalog', (doc) => {
    if (deps.config.current().providers[id]?.temporary && !tablesOf(doc, 'providers')[id]) {
      throw validationError([{ field: 'id', message: 'a temporary SVC_MODEL_* provider has this id' }]);
    }
    refuseOAuth(doc, id);
    const before = aliasesOf(doc, id);
    const moved = writeProvider(doc, {
      id, type: entry.wire_type!, base_url: body.base_url ?? entry.base_url ?? undefined, api_key: body.api_key || undefined, models,
      extra: { source: 'catalog', catalog_id: entry.id },
    });
    cascadePool(doc, moved, new Set(before.filter((a) => !moved.has(a))));
    seedDefaultModel(doc, aliasOf(id, models[0].model));
  });
  return { provider: toProviderItem(deps.config.current(), id), models_imported: models.length };
}
