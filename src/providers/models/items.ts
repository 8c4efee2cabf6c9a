import { isTable, type Doc } from '../../config/read.ts';
import type { ProviderConfig, ResolvedConfig } from '../../config/resolve.ts';

/** Core "Model item". */
export interface ModelItem {
  provider: string;
  model: string;
  display_name?: string;
  max_context_size: number;
  capabilities?: string[];
  support_efforts?: string[];
  default_effort?: string;
}

/** Core "Provider item" (never carries the key). */
export interface ProviderItem {
  id: string;
  type: string;
  base_url?: string;
  default_model?: string;
  has_api_key: boolean;
  status: 'connected' | 'unconfigured';
  models: string[];
}

const OVERRIDABLE = [
  'max_context_size', 'max_input_size', 'max_output_size', 'capabilities', 'display_name', 'reasoning_key',
  'adaptive_thinking', 'support_efforts', 'default_effort', 'off_effort',
] as const;

/** A `[models]` record with its `[models."<alias>".overrides]` applied (the override wins when present). */
export function effectiveModel(record: Doc): Doc {
  const { overrides, ...base } = record;
  if (!isTable(overrides)) return base;
  const out: Doc = { ...base };
  for (const k of OVERRIDABLE) if (overrides[k] !== undefined) out[k] = overrides[k];
  return out;
}

export function toModelItem(alias: string, record: Doc): ModelItem {
  const m = effectiveModel(record);
  const item: ModelItem = { provider: String(m.provider ?? ''), model: alias, max_context_size: Number(m.max_context_size ?? 0) };
  if (typeof m.display_name === 'string') item.display_name = m.display_name;
  if (Array.isArray(m.capabilities)) item.capabilities = m.capabilities as string[];
  if (Array.isArray(m.support_efforts)) item.support_efforts = m.support_efforts as string[];
  if (typeof m.default_effort === 'string') item.default_effort = m.default_effort;
  // Keep the declared field order of Core's model item.
  const { provider, model, display_name, max_context_size, capabilities, support_efforts, default_effort } = item;
  return JSON.parse(JSON.stringify({ provider, model, display_name, max_context_size, capabilities, support_efforts, default_effort }));
}

/** Every alias of the effective config (file plus temporary models). */
export function listModelItems(c: ResolvedConfig): ModelItem[] {
  return Object.entries(c.models).map(([alias, rec]) => toModelItem(alias, rec));
}

function hasApiKey(p: ProviderConfig): boolean {
  if (p.api_key) return true;
  return Object.entries(p.env ?? {}).some(([k, v]) => /KEY/i.test(k) && v.length > 0);
}

export function toProviderItem(c: ResolvedConfig, id: string): ProviderItem {
  const p = c.providers[id];
  const keyed = hasApiKey(p);
  const item: ProviderItem = {
    id, type: p.type ?? '',
    ...(p.base_url ? { base_url: p.base_url } : {}),
    ...(p.default_model ? { default_model: p.default_model } : {}),
    has_api_key: keyed,
    // `connected`: a key or an OAuth credential reference is stored.
    status: keyed || p.oauth ? 'connected' : 'unconfigured',
    models: Object.entries(c.models).filter(([, m]) => m.provider === id).map(([alias]) => alias),
  };
  return item;
}

export function listProviderItems(c: ResolvedConfig): ProviderItem[] {
  return Object.keys(c.providers).map((id) => toProviderItem(c, id));
}

/** The effective record of an alias, for the engine: overrides applied; undefined when unknown. */
export function resolveAlias(c: ResolvedConfig, alias: string): { alias: string; record: Doc; provider?: ProviderConfig } | undefined {
  const rec = c.models[alias];
  if (!rec) return undefined;
  const record = effectiveModel(rec);
  return { alias, record, provider: c.providers[String(record.provider)] };
}
