import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { AppContext } from '../app/context.ts';
import { resolveAlias } from '../providers/models.ts';
import { createModelClient } from '../providers/wire/factory.ts';
import type { ModelClient, ModelEntry, ProviderEntry } from '../providers/wire/types.ts';

/** Why no title backend could be built (40923 `details.reason`). */
export type BackendProblem = 'no_model' | 'model_not_resolved' | 'no_provider' | 'no_credential' | 'provider_misconfigured';

export type TitleBackend = { ok: true; alias: string; client: ModelClient } | { ok: false; reason: BackendProblem; model?: string };

/**
 * The title backend is the session's own model: `agent_config.model`, else the
 * global `default_model`. Part B `[services]` only knows web search and fetch,
 * so there is no dedicated title model to prefer.
 */
export async function titleBackend(app: AppContext, session: SessionRecord): Promise<TitleBackend> {
  const config = app.config.current();
  const configured = session.agent_config?.model;
  const alias = typeof configured === 'string' && configured ? configured : config.default_model;
  if (!alias) return { ok: false, reason: 'no_model' };
  const resolved = resolveAlias(config, alias);
  if (!resolved) return { ok: false, reason: 'model_not_resolved', model: alias };
  const providerId = String(resolved.record.provider ?? '');
  const provider = resolved.provider;
  if (!provider) return { ok: false, reason: 'no_provider', model: alias };
  const entry: ProviderEntry = {
    type: provider.type, base_url: provider.base_url, api_key: provider.api_key, env: provider.env, custom_headers: provider.custom_headers,
  };
  // OAuth-managed providers carry no key in the file: the login's access token is the key.
  if (!entry.api_key && provider.oauth) {
    try {
      entry.api_key = await app.auth.getAccessToken(providerId);
    } catch {
      return { ok: false, reason: 'no_credential', model: alias };
    }
  }
  try {
    return { ok: true, alias, client: createModelClient(entry, modelEntry(resolved.record)) };
  } catch (err) {
    const kind = (err as { kind?: string }).kind;
    return { ok: false, reason: kind === 'auth' ? 'no_credential' : 'provider_misconfigured', model: alias };
  }
}

function modelEntry(r: Record<string, unknown>): ModelEntry {
  const str = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : undefined);
  return {
    model: str('model') ?? '',
    max_output_size: typeof r.max_output_size === 'number' ? r.max_output_size : undefined,
    reasoning_key: str('reasoning_key'),
    adaptive_thinking: typeof r.adaptive_thinking === 'boolean' ? r.adaptive_thinking : undefined,
    off_effort: str('off_effort'),
    base_url: str('base_url'),
    protocol: str('protocol'),
  };
}
