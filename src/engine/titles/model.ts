import type { SessionRecord } from '../../../projections/session-index/session-index.ts';
import type { ConfigService } from '../../config/service.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import type { ModelClient } from '../../providers/wire/types.ts';
import { clientFor, resolveModel, type ClientCache, type ResolvedModel, type TokenSource } from '../model-resolve.ts';

/** What a title backend is built from: the config, the managed login, the shared model clients. */
export interface TitleBackendDeps {
  config: ConfigService;
  auth: TokenSource;
  clients: ClientCache;
}

/** Why no title backend could be built (40923 `details.reason`). */
export type BackendProblem = 'no_model' | 'model_not_resolved' | 'no_provider' | 'no_credential' | 'provider_misconfigured';

export type TitleBackend = { ok: true; alias: string; client: ModelClient } | { ok: false; reason: BackendProblem; model?: string };

/**
 * The title backend is the session's own model: `agent_config.model`, else the
 * global `default_model`. Part B `[services]` only knows web search and fetch,
 * so there is no dedicated title model to prefer.
 */
export async function titleBackend(deps: TitleBackendDeps, session: SessionRecord): Promise<TitleBackend> {
  const config = deps.config.current();
  const configured = session.agent_config?.model;
  const alias = typeof configured === 'string' && configured ? configured : config.default_model;
  if (!alias) return { ok: false, reason: 'no_model' };
  let model: ResolvedModel;
  try {
    model = resolveModel(config, alias);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const providerMissing = err.code === Codes.NO_PROVIDER || Boolean((err.details as { provider_id?: string } | undefined)?.provider_id);
    return { ok: false, reason: providerMissing ? 'no_provider' : 'model_not_resolved', model: alias };
  }
  try {
    // The same model resolution and client as a turn (flat models and OAuth tokens included).
    return { ok: true, alias, client: await clientFor(deps, model, deps.clients) };
  } catch (err) {
    const noKey = (err instanceof ApiError) || (err as { kind?: string }).kind === 'auth';
    return { ok: false, reason: noKey ? 'no_credential' : 'provider_misconfigured', model: alias };
  }
}
