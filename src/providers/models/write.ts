import { GLOBAL_STREAM } from '../../../journal/keys.ts';
import { isTable, type Doc } from '../../config/read.ts';
import type { ConfigService } from '../../config/service.ts';
import type { EventJournal } from '../../events/journal.ts';

/** The config whose model catalog is written, and the journal that hears of the change. */
export interface CatalogWriteDeps {
  config: ConfigService;
  journal: EventJournal;
}

/** Payload of `event.model_catalog.changed` (ours; the spec names only the event). */
export interface ModelCatalogChanged {
  /** What changed the aliases: provider.created / provider.updated / provider.deleted / refresh / import_catalog / import_registry. */
  reason: string;
  /** Provider ids whose aliases changed. */
  providers: string[];
  added: string[];
  removed: string[];
  /** Aliases kept whose record changed (metadata rewritten). */
  updated: string[];
  /** The refresh-report shape clients read (spec/clients.md E7): per provider whose aliases changed. */
  changed: { provider_id: string; provider_name: string; added: string[]; removed: string[] }[];
  /** Providers looked at and left as they were (a refresh); [] otherwise. */
  unchanged: string[];
  /** Providers a refresh could not read; [] otherwise. */
  failed: { provider: string; reason: string }[];
}

const modelsOf = (doc: Doc): Record<string, unknown> => (isTable(doc.models) ? { ...doc.models } : {});
const providerOf = (m: unknown) => (isTable(m) && typeof m.provider === 'string' ? m.provider : '');

export function diffAliases(reason: string, before: Record<string, unknown>, after: Record<string, unknown>): ModelCatalogChanged {
  const added = Object.keys(after).filter((k) => !(k in before));
  const removed = Object.keys(before).filter((k) => !(k in after));
  const updated = Object.keys(after).filter((k) => k in before && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  const providers = [...new Set([...added, ...updated].map((k) => providerOf(after[k])).concat(removed.map((k) => providerOf(before[k]))))].filter(Boolean);
  const changed = providers.map((id) => ({
    provider_id: id, provider_name: id,
    added: added.filter((k) => providerOf(after[k]) === id), removed: removed.filter((k) => providerOf(before[k]) === id),
  }));
  return { reason, providers, added, removed, updated, changed, unchanged: [], failed: [] };
}

/**
 * Runs `fn` on the raw config inside ConfigService.mutate (atomic with its
 * checks), then broadcasts `event.model_catalog.changed` when aliases changed.
 * Resolves to what `fn` returned and the alias diff.
 */
export async function writeCatalog<T>(
  deps: CatalogWriteDeps, reason: string, fn: (doc: Doc) => T, report?: Pick<ModelCatalogChanged, 'unchanged' | 'failed'>,
): Promise<{ result: T; diff: ModelCatalogChanged }> {
  let result!: T;
  let before: Record<string, unknown> = {};
  let after: Record<string, unknown> = {};
  await deps.config.mutate((doc) => {
    before = modelsOf(doc);
    result = fn(doc);
    after = modelsOf(doc);
    return doc;
  });
  const diff = diffAliases(reason, before, after);
  if (report) Object.assign(diff, { unchanged: [...report.unchanged], failed: [...report.failed] });
  if (diff.added.length || diff.removed.length || diff.updated.length) {
    await deps.journal.append([{ stream: GLOBAL_STREAM, type: 'event.model_catalog.changed', payload: diff }]);
  }
  return { result, diff };
}
