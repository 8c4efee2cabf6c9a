import type { AuthService } from '../../auth/service.ts';
import { isTable, type Doc } from '../../config/read.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError, notFound } from '../../../protocol/errors.ts';
import { checkImportable, entryModels } from '../catalog/import.ts';
import type { ModelDirectory } from '../catalog/directory.ts';
import { writeCatalog, type CatalogWriteDeps } from './write.ts';
import { aliasesOf, cascadePool, tablesOf, writeProvider, type ModelEntry } from '../provider-config.ts';
import { fetchRegistry, registryRecord } from '../catalog/registry.ts';

/** The catalog write plus the managed provider's login (its model list needs the access token). */
export type RefreshDeps = CatalogWriteDeps & { auth: Pick<AuthService, 'clientFor' | 'getAccessToken'> };

/** Core refresh report. */
export interface RefreshReport {
  changed: { provider_id: string; provider_name: string; added: string[]; removed: string[] }[];
  unchanged: string[];
  failed: { provider: string; reason: string }[];
}

interface Discovered {
  models: ModelEntry[];
  base_url?: string;
}

/** The managed host's model list for an OAuth-backed provider (the login's credential). */
async function managedList(deps: RefreshDeps, id: string): Promise<Discovered> {
  const client = await deps.auth.clientFor(id);
  if (!client) throw new Error('not logged in');
  const list = await client.models(await deps.auth.getAccessToken(id));
  const models = list.models.map((m) => JSON.parse(JSON.stringify({
    model: m.model, max_context_size: m.max_context_size, display_name: m.display_name, capabilities: m.capabilities,
    support_efforts: m.support_efforts, default_effort: m.default_effort, max_output_size: m.max_output_size,
  })) as ModelEntry);
  return { models, base_url: list.base_url };
}

/**
 * Where a provider's model list comes from: `catalog` and `registry` imports
 * are re-read, OAuth-backed providers ask their host; everything else
 * (created through the API, hand-written, temporary) is static and reported
 * unchanged without network.
 */
async function discover(deps: RefreshDeps, dir: ModelDirectory, doc: Doc, id: string): Promise<Discovered | undefined> {
  const p = tablesOf(doc, 'providers')[id];
  if (!isTable(p)) return undefined;
  if (p.source === 'catalog' && typeof p.catalog_id === 'string') {
    const entry = await dir.get(p.catalog_id);
    checkImportable(entry, id, typeof p.base_url === 'string' ? p.base_url : undefined);
    return { models: entryModels(entry) };
  }
  if (p.source === 'registry' && typeof p.registry_url === 'string') {
    const key = registryRecord(doc, p.registry_url)?.api_key;
    const entry = (await fetchRegistry(p.registry_url, typeof key === 'string' ? key : undefined)).find((e) => e.id === id);
    if (!entry) throw new Error('no longer listed by its registry');
    return { models: entryModels(entry) };
  }
  if (isTable(p.oauth)) return managedList(deps, id);
  return undefined;
}

/**
 * Part B: a model's capabilities are "only ever added, never removed": a refresh that no longer
 * lists one the model had (from an earlier discovery or a hand edit) keeps it.
 */
function keepCapabilities(doc: Doc, id: string, models: ModelEntry[]): ModelEntry[] {
  const records = tablesOf(doc, 'models');
  const had = new Map<string, string[]>();
  for (const alias of aliasesOf(doc, id)) {
    const caps = records[alias]?.capabilities;
    if (Array.isArray(caps)) had.set(String(records[alias]!.model), caps.filter((c): c is string => typeof c === 'string'));
  }
  return models.map((m) => {
    const old = had.get(m.model) ?? [];
    const merged = [...old, ...(m.capabilities ?? []).filter((c) => !old.includes(c))];
    return merged.length ? { ...m, capabilities: merged } : m;
  });
}

function rewrite(doc: Doc, id: string, found: Discovered): void {
  const models = keepCapabilities(doc, id, found.models);
  const p = tablesOf(doc, 'providers')[id];
  if (!isTable(p)) return;
  const before = aliasesOf(doc, id);
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  const dm = str(p.default_model);
  const moved = writeProvider(doc, {
    id, type: String(p.type), base_url: found.base_url ?? str(p.base_url), models,
    default_model: dm && models.some((m) => m.model === dm) ? dm : undefined,
  });
  cascadePool(doc, moved, new Set(before.filter((a) => !moved.has(a))));
}

/** Re-discovers the given providers' models and rewrites their aliases (one write, one event). */
export async function refreshProviders(deps: RefreshDeps, dir: ModelDirectory, ids: string[]): Promise<RefreshReport> {
  const report: RefreshReport = { changed: [], unchanged: [], failed: [] };
  const doc = deps.config.rawDocument();
  const found = new Map<string, Discovered>();
  if (ids.some((id) => tablesOf(doc, 'providers')[id]?.source === 'catalog')) dir.invalidate();
  for (const id of ids) {
    try {
      const got = await discover(deps, dir, doc, id);
      if (got) found.set(id, got);
      else report.unchanged.push(id);
    } catch (err) {
      report.failed.push({ provider: id, reason: err instanceof ApiError || err instanceof Error ? err.message : String(err) });
    }
  }
  if (!found.size) return report;
  const { diff } = await writeCatalog(deps, 'refresh', (d) => {
    for (const [id, got] of found) rewrite(d, id, got);
  }, report);
  for (const id of found.keys()) {
    const mine = (a: string) => a.startsWith(`${id}/`);
    const added = diff.added.filter(mine);
    const removed = diff.removed.filter(mine);
    if (added.length || removed.length || diff.updated.some(mine)) report.changed.push({ provider_id: id, provider_name: id, added, removed });
    else report.unchanged.push(id);
  }
  return report;
}

/** POST /api/v1/providers/{provider_id}:refresh. */
export function refreshOne(deps: RefreshDeps, dir: ModelDirectory, id: string): Promise<RefreshReport> {
  if (!deps.config.current().providers[id]) throw notFound(Codes.PROVIDER_NOT_FOUND, 'provider', id);
  return refreshProviders(deps, dir, [id]);
}

/** `providers:refresh` (all) and `providers:refresh_providers` (OAuth-backed only). */
export function refreshAll(deps: RefreshDeps, dir: ModelDirectory, oauthOnly: boolean): Promise<RefreshReport> {
  const providers = deps.config.current().providers;
  return refreshProviders(deps, dir, Object.keys(providers).filter((id) => !oauthOnly || providers[id].oauth));
}
