import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { AppContext } from '../app/context.ts';
import { isTable, type Doc } from '../config/read.ts';
import { GlobalEvents } from '../events/types.ts';

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
}

const modelsOf = (doc: Doc): Record<string, unknown> => (isTable(doc.models) ? { ...doc.models } : {});
const providerOf = (m: unknown) => (isTable(m) && typeof m.provider === 'string' ? m.provider : '');

export function diffAliases(reason: string, before: Record<string, unknown>, after: Record<string, unknown>): ModelCatalogChanged {
  const added = Object.keys(after).filter((k) => !(k in before));
  const removed = Object.keys(before).filter((k) => !(k in after));
  const updated = Object.keys(after).filter((k) => k in before && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  const providers = new Set([...added, ...updated].map((k) => providerOf(after[k])).concat(removed.map((k) => providerOf(before[k]))));
  return { reason, providers: [...providers].filter(Boolean), added, removed, updated };
}

/**
 * Runs `fn` on the raw config inside ConfigService.mutate (atomic with its
 * checks), then broadcasts `event.model_catalog.changed` when aliases changed.
 * Resolves to what `fn` returned and the alias diff.
 */
export async function writeCatalog<T>(app: AppContext, reason: string, fn: (doc: Doc) => T): Promise<{ result: T; diff: ModelCatalogChanged }> {
  let result!: T;
  let before: Record<string, unknown> = {};
  let after: Record<string, unknown> = {};
  await app.config.mutate((doc) => {
    before = modelsOf(doc);
    result = fn(doc);
    after = modelsOf(doc);
    return doc;
  });
  const diff = diffAliases(reason, before, after);
  if (diff.added.length || diff.removed.length || diff.updated.length) {
    await app.journal.append([{ stream: GLOBAL_STREAM, type: GlobalEvents.modelCatalogChanged, payload: diff }]);
  }
  return { result, diff };
}
