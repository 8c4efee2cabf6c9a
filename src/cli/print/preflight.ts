import path from 'node:path';
import type { SessionRecord } from '../../../projections/session-index/session-index.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import type { ConfigService } from '../../config/service.ts';
import { checkCredential, resolveModel, type ClientCache, type TokenSource } from '../../engine/model-resolve.ts';
import { UsageError } from './args.ts';

/**
 * What the prompt intake would refuse about the model, checked before a session is created (so a refused run
 * leaves no empty session behind), as a one-line error: an unknown `--model` is a usage error (exit 2), the
 * configuration's own problems (no provider, no key, no default model) are not (exit 1).
 */
export async function checkModel(deps: { home: string; config: ConfigService; auth: TokenSource; clients: ClientCache }, model: string | undefined, resumed?: SessionRecord): Promise<void> {
  const file = path.join(deps.home, 'config.toml');
  const c = deps.config.current();
  try {
    const m = resolveModel(c, model, (resumed?.agent_config as { model?: string } | undefined)?.model);
    await checkCredential(deps, m);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const details = (err.details ?? {}) as { provider_id?: string };
    if (err.code === Codes.MODEL_NOT_RESOLVED && model !== undefined) {
      const known = Object.keys(c.models);
      throw new UsageError(`unknown model: ${model} (${known.length ? `configured: ${known.join(', ')}` : `no [models] in ${file}`})`);
    }
    if (err.code === Codes.NO_PROVIDER) throw new Error(`no provider configured: add a [providers.<name>] table and a model to ${file}`);
    if (err.code === Codes.PROVIDER_NO_CREDENTIAL) throw new Error(`provider ${details.provider_id} has no API key: set api_key in [providers.${details.provider_id}] of ${file}`);
    if (err.code === Codes.MODEL_NOT_RESOLVED) throw new Error(`${err.message}: set default_model in ${file}, or pass --model`);
    throw new Error(err.message);
  }
}
