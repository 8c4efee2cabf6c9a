import { isTable, type Doc } from '../../config/read.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError, validationError } from '../../../protocol/errors.ts';
import { fetchDirectory, type CatalogEntry } from './directory.ts';
import { entryModels } from './import.ts';
import { toProviderItem, type ProviderItem } from '../models/items.ts';
import { writeCatalog, type CatalogWriteDeps } from '../models/write.ts';
import { aliasOf, aliasesOf, cascadePool, deleteProvider, isOAuthManaged, PROVIDER_ID, refuseOAuth, seedDefaultModel, tablesOf, writeProvider } from '../provider-config.ts';

/** Registry bookkeeping lives in config.toml: `[model_registries."<url>"]` with `api_key` and the imported `providers`. */
export const REGISTRIES_KEY = 'model_registries';
const FETCH_TIMEOUT_MS = 10_000;

const unusable = (url: string, message: string) => new ApiError(Codes.REGISTRY_UNUSABLE, `registry ${url}: ${message}`, { details: { url } });

/** Entries a registry can provide: accepted, with a base URL, models and a usable id. */
export function importableEntries(entries: CatalogEntry[]): CatalogEntry[] {
  return entries.filter((e) => !e.rejected && e.wire_type && e.base_url && e.models.length && PROVIDER_ID.test(e.id));
}

export function registryRecord(doc: Doc, url: string): Doc | undefined {
  const all = doc[REGISTRIES_KEY];
  return isTable(all) && isTable(all[url]) ? all[url] : undefined;
}

/** Fetches a registry with the key given or remembered; 40005 on any failure. */
export async function fetchRegistry(url: string, bearer?: string): Promise<CatalogEntry[]> {
  let entries: CatalogEntry[];
  try {
    entries = await fetchDirectory(url, FETCH_TIMEOUT_MS, bearer);
  } catch (err) {
    throw unusable(url, `cannot fetch or parse (${(err as Error).message})`);
  }
  const usable = importableEntries(entries);
  if (!usable.length) throw unusable(url, 'no importable providers');
  return usable;
}

function applyEntry(doc: Doc, e: CatalogEntry, url: string, apiKey: string | undefined): void {
  const before = aliasesOf(doc, e.id);
  const moved = writeProvider(doc, {
    id: e.id, type: e.wire_type!, base_url: e.base_url!, api_key: apiKey, models: entryModels(e),
    extra: { source: 'registry', registry_url: url },
  });
  cascadePool(doc, moved, new Set(before.filter((a) => !moved.has(a))));
}

/**
 * POST /api/v1/providers:import_registry: every importable entry becomes a
 * provider; providers of a previous import of the same URL that disappeared
 * upstream are removed (OAuth-managed ones are left alone).
 */
export async function importRegistry(deps: CatalogWriteDeps, url: string, apiKey?: string): Promise<{ providers: ProviderItem[]; models_imported: number }> {
  const remembered = registryRecord(deps.config.rawDocument(), url)?.api_key;
  const bearer = apiKey || (typeof remembered === 'string' ? remembered : undefined);
  const entries = await fetchRegistry(url, bearer);
  await writeCatalog(deps, 'import_registry', (doc) => {
    for (const e of entries) {
      refuseOAuth(doc, e.id);
      if (deps.config.current().providers[e.id]?.temporary && !tablesOf(doc, 'providers')[e.id]) {
        throw validationError([{ field: 'url', message: `provider ${e.id} clashes with the temporary SVC_MODEL_* provider` }]);
      }
    }
    const ids = entries.map((e) => e.id);
    const previous = registryRecord(doc, url);
    const gone = (Array.isArray(previous?.providers) ? (previous.providers as string[]) : []).filter((id) => !ids.includes(id));
    for (const id of gone) {
      const p = tablesOf(doc, 'providers')[id];
      if (isTable(p) && p.registry_url === url && !isOAuthManaged(doc, id)) deleteProvider(doc, id);
    }
    for (const e of entries) applyEntry(doc, e, url, bearer);
    const registries = tablesOf(doc, REGISTRIES_KEY);
    registries[url] = { ...(bearer ? { api_key: bearer } : {}), providers: ids };
    seedDefaultModel(doc, aliasOf(entries[0].id, entries[0].models[0].id));
  });
  const c = deps.config.current();
  return { providers: entries.map((e) => toProviderItem(c, e.id)), models_imported: entries.reduce((n, e) => n + e.models.length, 0) };
}
