import type { FieldIssue } from '../../protocol/errors.ts';
import type { ConfigPatch } from '../../protocol/schemas/config.ts';
import { PROVIDER_TYPES } from './defaults.ts';
import { isTable, type Doc } from './read.ts';
import { REDACTED } from './view.ts';

/** Copies the tables and arrays of a document; leaves (including smol-toml dates) are shared, they are never mutated. */
export function cloneDoc<T>(x: T): T {
  if (Array.isArray(x)) return x.map(cloneDoc) as T;
  if (isTable(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, cloneDoc(v)])) as T;
  return x;
}

/** Fields GET adds for display only; a client echoing them back must not write them to the file. */
const READ_ONLY = new Set(['has_api_key', 'has_oauth']);

/** Copies a value to store, dropping nulls, undefined and read-only echoes. */
function clean(x: unknown): unknown {
  if (Array.isArray(x)) return x.filter((i) => i !== null && i !== undefined).map(clean);
  if (!isTable(x)) return x;
  const out: Doc = {};
  for (const [k, v] of Object.entries(x)) if (v !== null && v !== undefined && !READ_ONLY.has(k) && v !== REDACTED) out[k] = clean(v);
  return out;
}

/** RFC 7396 merge: tables merge recursively, null deletes, anything else replaces. An echoed "[redacted]" keeps the stored secret. */
function mergeInto(target: Doc, patch: Doc): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || v === REDACTED || READ_ONLY.has(k)) continue;
    if (v === null) delete target[k];
    else if (isTable(v)) {
      if (!isTable(target[k])) target[k] = {};
      mergeInto(target[k] as Doc, v);
    } else target[k] = clean(v);
  }
}

/** The patch with derived fields mapped to stored ones: `yolo:true` -> yolo mode, `plan_mode` -> `default_plan_mode`. */
export function normalizePatch(patch: ConfigPatch): Doc {
  const { yolo, plan_mode, raw: _raw, ...rest } = patch;
  const out: Doc = { ...rest };
  if (yolo === true) out.default_permission_mode = 'yolo';
  if (plan_mode !== undefined && rest.default_plan_mode === undefined) out.default_plan_mode = plan_mode;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** Applies a normalized patch to a copy of `raw`. */
export function applyPatch(raw: Doc, patch: Doc): Doc {
  const doc = cloneDoc(raw);
  mergeInto(doc, patch);
  return doc;
}

const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9 _-]*$/;
const tables = (doc: Doc, key: string): Record<string, Doc> => (isTable(doc[key]) ? (doc[key] as Record<string, Doc>) : {});
const isInt = (x: unknown, min: number) => typeof x === 'number' && Number.isInteger(x) && x >= min;

function checkProviders(doc: Doc, patch: Doc, issues: FieldIssue[]): void {
  const providers = tables(doc, 'providers');
  for (const [id, p] of Object.entries(tables(patch, 'providers'))) {
    if (p === null) continue;
    if (!PROVIDER_ID.test(id)) issues.push({ field: `providers.${id}`, message: 'provider id: letters, digits, -, _ and spaces, starting with a letter or digit' });
    if (!(PROVIDER_TYPES as readonly unknown[]).includes(providers[id]?.type)) issues.push({ field: `providers.${id}.type`, message: `required; one of ${PROVIDER_TYPES.join(', ')}` });
  }
}

function checkModels(doc: Doc, patch: Doc, issues: FieldIssue[]): void {
  const providers = tables(doc, 'providers');
  const models = tables(doc, 'models');
  for (const [alias, m] of Object.entries(tables(patch, 'models'))) {
    if (m === null) continue;
    const merged = models[alias] ?? {};
    const f = (k: string) => `models.${alias}.${k}`;
    if (typeof merged.provider !== 'string' || !(merged.provider in providers)) issues.push({ field: f('provider'), message: 'required; must be defined in providers' });
    if (typeof merged.model !== 'string' || !merged.model) issues.push({ field: f('model'), message: 'required' });
    if (!isInt(merged.max_context_size, 1)) issues.push({ field: f('max_context_size'), message: 'required; an integer >= 1' });
  }
}

/** Part B "secondary_model" rule 2. */
function checkSecondary(doc: Doc, issues: FieldIssue[]): void {
  const s = isTable(doc.secondary_model) ? doc.secondary_model : {};
  const pool = isTable(s.models) ? Object.keys(s.models) : undefined;
  const f = (k: string) => `secondary_model.${k}`;
  if (pool?.includes('primary')) issues.push({ field: f('models'), message: '"primary" is reserved and cannot be a pool key' });
  if (pool && (typeof s.default_model !== 'string' || !pool.includes(s.default_model))) issues.push({ field: f('default_model'), message: 'required when models is set; must be one of its keys' });
  if (s.force === true && typeof s.default_model !== 'string') issues.push({ field: f('force'), message: 'force requires default_model' });
  if (s.force === true && pool) issues.push({ field: f('force'), message: 'force cannot be combined with models' });
}

/** Cross-field rules of Part B, checked on the merged document for the domains the patch touches. */
export function checkPatched(doc: Doc, patch: Doc): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (patch.providers) checkProviders(doc, patch, issues);
  if (patch.models) checkModels(doc, patch, issues);
  if (patch.secondary_model) checkSecondary(doc, issues);
  if (typeof patch.default_model === 'string' && !(patch.default_model in tables(doc, 'models'))) {
    issues.push({ field: 'default_model', message: `model alias not defined in models: ${patch.default_model}` });
  }
  if (typeof patch.default_provider === 'string' && !(patch.default_provider in tables(doc, 'providers'))) {
    issues.push({ field: 'default_provider', message: `provider not defined in providers: ${patch.default_provider}` });
  }
  return issues;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Top-level view fields whose values differ, camelCased for `event.config.changed`. */
export function changedFields(before: Doc, after: Doc): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed = [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  // raw is noise next to modeled fields; it is reported only when nothing modeled changed.
  const modeled = changed.filter((k) => k !== 'raw');
  return (modeled.length ? modeled : changed).map(camel);
}
