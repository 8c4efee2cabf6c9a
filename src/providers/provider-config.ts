import { PROVIDER_TYPES } from '../config/defaults.ts';
import { isTable, type Doc } from '../config/read.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound, validationError, type FieldIssue } from '../../protocol/errors.ts';

/**
 * Provider and alias writes on the raw config document (pure functions: the
 * routes run them inside ConfigService.mutate, so checks and writes are atomic).
 */

export const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9 _-]*$/;
export const PROVIDER_ID_RULE = 'letters, digits, -, _ and spaces, starting with a letter or digit';
const ENV_PLACEHOLDER = /\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*/;

/** One `models[]` entry of a provider body (create, PUT, imports). */
export interface ModelEntry {
  model: string;
  max_context_size: number;
  display_name?: string;
  capabilities?: string[];
  max_output_size?: number;
  support_efforts?: string[];
  adaptive_thinking?: boolean;
  /** Written by managed refreshes only (Part B: they may rewrite it). */
  default_effort?: string;
}

/** What a provider write sets: `api_key` undefined keeps the stored key, '' clears it. */
export interface ProviderSpec {
  id: string;
  type: string;
  base_url?: string;
  default_model?: string;
  api_key?: string;
  models: ModelEntry[];
  /** Bookkeeping of imports (`source`, `catalog_id`, `registry_url`); absent = static. */
  extra?: Doc;
}

export const tablesOf = (doc: Doc, key: string): Record<string, Doc> => {
  if (!isTable(doc[key])) doc[key] = {};
  return doc[key] as Record<string, Doc>;
};

export const aliasOf = (providerId: string, model: string) => `${providerId}/${model}`;

/** Alias keys of `[models]` bound to a provider. */
export function aliasesOf(doc: Doc, providerId: string): string[] {
  const models = isTable(doc.models) ? (doc.models as Record<string, Doc>) : {};
  return Object.entries(models).filter(([, m]) => isTable(m) && m.provider === providerId).map(([k]) => k);
}

/** Cross-field rules of a provider body (id, base_url, default_model, models). */
export function checkProviderSpec(spec: Pick<ProviderSpec, 'id' | 'base_url' | 'default_model' | 'models'>, idField = 'id'): void {
  const issues: FieldIssue[] = [];
  if (!PROVIDER_ID.test(spec.id)) issues.push({ field: idField, message: PROVIDER_ID_RULE });
  const bad = spec.base_url !== undefined ? baseUrlProblem(spec.base_url) : undefined;
  if (bad) issues.push({ field: 'base_url', message: bad });
  const names = spec.models.map((m) => m.model);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (!spec.models.length) issues.push({ field: 'models', message: 'at least 1 entry' });
  if (dup !== undefined) issues.push({ field: 'models', message: `duplicate model: ${dup}` });
  if (spec.default_model !== undefined && !names.includes(spec.default_model)) issues.push({ field: 'default_model', message: 'must be one of models[].model' });
  if (issues.length) throw validationError(issues);
}

/** Why a base_url is refused, if it is. */
export function baseUrlProblem(url: string): string | undefined {
  if (ENV_PLACEHOLDER.test(url)) return 'must not contain an environment-variable placeholder such as ${X} or $X';
  if (!/^https?:\/\/[^/\s]+/i.test(url)) return 'must be an http(s) URL';
  return undefined;
}

export function isOAuthManaged(doc: Doc, id: string): boolean {
  const p = tablesOf(doc, 'providers')[id];
  return isTable(p) && isTable(p.oauth);
}

/** 40412 unless the provider is in the file (temporary `SVC_MODEL_*` providers are refused: they live in the environment). */
export function requireStored(doc: Doc, id: string, temporary: boolean): Doc {
  if (temporary && !tablesOf(doc, 'providers')[id]) {
    throw validationError([{ field: 'provider_id', message: 'a temporary SVC_MODEL_* provider; change its environment variables instead' }]);
  }
  const p = tablesOf(doc, 'providers')[id];
  if (!isTable(p)) throw notFound(Codes.PROVIDER_NOT_FOUND, 'provider', id);
  return p;
}

export function refuseOAuth(doc: Doc, id: string): void {
  if (isOAuthManaged(doc, id)) throw new ApiError(Codes.PROVIDER_OAUTH_MANAGED, `provider ${id} is OAuth-managed; log out instead`, { details: { id } });
}

function modelRecord(providerId: string, e: ModelEntry, previous?: Doc): Doc {
  const rec: Doc = { provider: providerId, model: e.model, max_context_size: e.max_context_size };
  for (const k of ['display_name', 'capabilities', 'max_output_size', 'support_efforts', 'adaptive_thinking', 'default_effort'] as const) {
    if (e[k] !== undefined) rec[k] = e[k];
  }
  // User overrides survive rebuilds and refreshes (Part B "Overrides").
  if (previous && isTable(previous.overrides)) rec.overrides = previous.overrides;
  return rec;
}

/**
 * Writes provider `spec.id` (replacing `previousId` when renaming) and rebuilds
 * its aliases; returns old alias -> new alias for the pointers to migrate.
 */
export function writeProvider(doc: Doc, spec: ProviderSpec, previousId = spec.id): Map<string, string> {
  const providers = tablesOf(doc, 'providers');
  const models = tablesOf(doc, 'models');
  const old = isTable(providers[previousId]) ? providers[previousId] : {};
  const oldAliases = aliasesOf(doc, previousId);
  // Old alias per model name; the canonical `previousId/model` wins over hand-written ones.
  const byModel = new Map<string, string>();
  for (const a of oldAliases) {
    const name = String(models[a].model);
    if (!byModel.has(name) || a === aliasOf(previousId, name)) byModel.set(name, a);
  }
  const wanted = spec.models.map((e) => aliasOf(spec.id, e.model));
  const clash = wanted.find((a) => isTable(models[a]) && models[a].provider !== previousId);
  if (clash) throw validationError([{ field: 'models', message: `alias ${clash} belongs to another provider` }]);
  const next: Doc = { ...old, type: spec.type };
  for (const k of ['base_url', 'default_model'] as const) {
    if (spec[k] !== undefined) next[k] = spec[k];
    else delete next[k];
  }
  if (spec.api_key === '') delete next.api_key;
  else if (spec.api_key !== undefined) next.api_key = spec.api_key;
  Object.assign(next, spec.extra ?? {});
  const previous = Object.fromEntries(oldAliases.map((a) => [a, models[a]]));
  for (const a of oldAliases) delete models[a];
  if (previousId !== spec.id) delete providers[previousId];
  providers[spec.id] = next;
  const moved = new Map<string, string>();
  for (const e of spec.models) {
    const before = byModel.get(e.model);
    const alias = aliasOf(spec.id, e.model);
    models[alias] = modelRecord(spec.id, e, before ? previous[before] : undefined);
    if (before) moved.set(before, alias);
  }
  return moved;
}

/** Seeds the global default model when the file has none; an existing default is never modified. */
export function seedDefaultModel(doc: Doc, alias: string | undefined): void {
  if (alias && (typeof doc.default_model !== 'string' || !doc.default_model)) doc.default_model = alias;
}

/** Rename migration of the default pointers (Core PUT `new_id`). */
export function migratePointers(doc: Doc, oldId: string, newId: string, moved: Map<string, string>): void {
  if (oldId !== newId && doc.default_provider === oldId) doc.default_provider = newId;
  if (typeof doc.default_model === 'string' && moved.has(doc.default_model)) doc.default_model = moved.get(doc.default_model);
}

/**
 * The secondary-model pool follows the aliases: moved keys are renamed, vanished
 * ones removed; a removed pool default falls to the first remaining key so the
 * section stays valid (Part B "secondary_model" rule 2).
 */
export function cascadePool(doc: Doc, moved: Map<string, string>, removed: Set<string>): void {
  if (!isTable(doc.secondary_model)) return;
  const sec = doc.secondary_model;
  if (isTable(sec.models)) {
    const pool: Doc = {};
    for (const [k, hint] of Object.entries(sec.models)) {
      if (moved.has(k)) pool[moved.get(k)!] = hint;
      else if (!removed.has(k)) pool[k] = hint;
    }
    if (Object.keys(pool).length) sec.models = pool;
    else delete sec.models;
  }
  if (typeof sec.default_model === 'string') {
    if (moved.has(sec.default_model)) sec.default_model = moved.get(sec.default_model);
    else if (removed.has(sec.default_model)) {
      const first = isTable(sec.models) ? Object.keys(sec.models)[0] : undefined;
      if (first) sec.default_model = first;
      else {
        delete sec.default_model;
        delete sec.force;
      }
    }
  }
}

/** Deletes a provider and its aliases, cascading into the pool; default pointers stay. Returns the removed aliases. */
export function deleteProvider(doc: Doc, id: string): string[] {
  const aliases = aliasesOf(doc, id);
  const models = tablesOf(doc, 'models');
  for (const a of aliases) delete models[a];
  delete tablesOf(doc, 'providers')[id];
  cascadePool(doc, new Map(), new Set(aliases));
  return aliases;
}

export function isProviderType(x: string): boolean {
  return (PROVIDER_TYPES as readonly string[]).includes(x);
}
