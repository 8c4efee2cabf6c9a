import type { Doc } from '../../config/read.ts';

/** The provider types a temporary model may use (PROVIDER_TYPES of config/defaults.ts). */
const TYPES = ['svc', 'messages_api', 'chat_compat', 'chat_compat_responses', 'genai', 'cloud_ai'];
const DEFAULT_CONTEXT = 131_072;

/**
 * A temporary model synthesized from `SVC_MODEL_*` variables (docs/providers.md):
 * an in-memory provider and one alias, merged into the resolved config and never
 * written to config.toml.
 */
export interface EnvModel {
  providerId: string;
  alias: string;
  provider: { type: string; base_url?: string; api_key?: string };
  model: Doc;
}

const list = (s: string | undefined) => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** Reads `SVC_MODEL_*`; without SVC_MODEL_NAME there is no temporary model. Invalid values warn and fall back. */
export function readEnvModel(env: NodeJS.ProcessEnv): { model?: EnvModel; warnings: string[] } {
  const warnings: string[] = [];
  const name = env.SVC_MODEL_NAME?.trim();
  if (!name) return { warnings };
  let type = env.SVC_MODEL_PROVIDER_TYPE?.trim() || 'chat_compat';
  if (!TYPES.includes(type)) {
    warnings.push(`environment variable SVC_MODEL_PROVIDER_TYPE has an invalid value; using chat_compat`);
    type = 'chat_compat';
  }
  let providerId = env.SVC_MODEL_PROVIDER_ID?.trim() || 'env';
  if (!/^[A-Za-z0-9][A-Za-z0-9 _-]*$/.test(providerId)) {
    warnings.push('environment variable SVC_MODEL_PROVIDER_ID has an invalid value; using env');
    providerId = 'env';
  }
  let context = DEFAULT_CONTEXT;
  const rawContext = env.SVC_MODEL_MAX_CONTEXT_SIZE?.trim();
  if (rawContext) {
    if (/^\d+$/.test(rawContext) && Number(rawContext) >= 1) context = Number(rawContext);
    else warnings.push(`environment variable SVC_MODEL_MAX_CONTEXT_SIZE has an invalid value; using ${DEFAULT_CONTEXT}`);
  }
  const caps = list(env.SVC_MODEL_CAPABILITIES);
  const model: Doc = { provider: providerId, model: name, max_context_size: context };
  if (env.SVC_MODEL_DISPLAY_NAME?.trim()) model.display_name = env.SVC_MODEL_DISPLAY_NAME.trim();
  if (caps.length) model.capabilities = caps;
  const provider: EnvModel['provider'] = { type };
  if (env.SVC_MODEL_BASE_URL?.trim()) provider.base_url = env.SVC_MODEL_BASE_URL.trim();
  if (env.SVC_MODEL_API_KEY) provider.api_key = env.SVC_MODEL_API_KEY;
  return { model: { providerId, alias: `${providerId}/${name}`, provider, model }, warnings };
}
