import type { ResolvedConfig } from '../config/resolve.ts';
import { isTable } from '../config/read.ts';

/**
 * Core `models_ready`: the global `default_model` alias exists and resolves to a
 * configured provider, or is a providerless flat model with its own `base_url`.
 * The resolved config already holds the in-memory `SVC_MODEL_*` provider and alias
 * (config/resolve.ts). Credentials are not checked.
 */
export function modelsReady(c: ResolvedConfig): boolean {
  const alias = c.default_model;
  const m = alias ? c.models[alias] : undefined;
  if (!isTable(m)) return false;
  if (typeof m.provider === 'string' && m.provider in c.providers) return true;
  return (m.provider === undefined || m.provider === '') && typeof m.base_url === 'string' && m.base_url.length > 0;
}

/** `providers_count`: configured providers, the temporary env provider included. */
export function providersCount(c: ResolvedConfig): number {
  return Object.keys(c.providers).length;
}
