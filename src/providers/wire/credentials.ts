import { WireConfigError } from './errors.ts';
import type { ProviderEntry, WireType } from './types.ts';

/** Provider-conventional key names accepted in `[providers.<name>.env]`, in priority order. */
const ENV_KEYS: Record<WireType, { key: string[]; base: string[] }> = {
  svc: { key: ['SVC_API_KEY', 'API_KEY'], base: ['SVC_BASE_URL', 'BASE_URL'] },
  chat_compat: { key: ['OPENAI_API_KEY', 'API_KEY'], base: ['OPENAI_BASE_URL', 'BASE_URL'] },
  chat_compat_responses: { key: ['OPENAI_API_KEY', 'API_KEY'], base: ['OPENAI_BASE_URL', 'BASE_URL'] },
  messages_api: { key: ['ANTHROPIC_API_KEY', 'API_KEY'], base: ['ANTHROPIC_BASE_URL', 'BASE_URL'] },
  genai: { key: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'GOOGLE_API_KEY', 'API_KEY'], base: ['GOOGLE_GEMINI_BASE_URL', 'BASE_URL'] },
  cloud_ai: { key: ['GOOGLE_VERTEX_API_KEY', 'GOOGLE_API_KEY', 'API_KEY'], base: ['GOOGLE_VERTEX_BASE_URL', 'BASE_URL'] },
};

const DEFAULT_BASE: Partial<Record<WireType, string>> = {
  chat_compat: 'https://api.openai.com/v1',
  chat_compat_responses: 'https://api.openai.com/v1',
  messages_api: 'https://api.anthropic.com/v1',
  genai: 'https://generativelanguage.googleapis.com/v1beta',
};

export interface Credentials {
  apiKey?: string;
  baseURL?: string;
  /** The whole `env` table, for protocol-specific extras (Vertex project, location, service account). */
  env: Record<string, string>;
}

/**
 * Part B providers: `api_key`, then the `env` table; never the process environment. The AI SDK
 * providers fall back to process.env when a setting is undefined, so every value we hand them is
 * an explicit string. `requireKey` false lets Vertex use a service account instead.
 */
export function resolveCredentials(type: WireType, p: ProviderEntry, baseOverride?: string, requireKey = true): Credentials {
  const env = p.env ?? {};
  const names = ENV_KEYS[type];
  const apiKey = p.api_key || firstOf(env, names.key);
  const baseURL = baseOverride || p.base_url || firstOf(env, names.base) || DEFAULT_BASE[type];
  if (requireKey && !apiKey) {
    throw new WireConfigError(`no API key: set api_key or one of ${names.key.join(', ')} in the provider's env table`, 'auth');
  }
  if (!baseURL && type !== 'cloud_ai') throw new WireConfigError(`provider type ${type} needs a base_url`);
  return { apiKey, baseURL: baseURL?.replace(/\/+$/, ''), env };
}

function firstOf(env: Record<string, string>, keys: string[]): string | undefined {
  for (const k of keys) if (env[k]) return env[k];
  return undefined;
}

/**
 * cloud_ai runs in express mode with an API key, or with a service account from the env table;
 * without either the client cannot be built (checked before any request, like a missing key).
 */
export function assertCloudAiCredentials(creds: Credentials): void {
  if (creds.apiKey) return;
  const e = creds.env;
  if (!e.GOOGLE_CLIENT_EMAIL || !e.GOOGLE_PRIVATE_KEY || !e.GOOGLE_VERTEX_PROJECT || !e.GOOGLE_VERTEX_LOCATION) {
    throw new WireConfigError('cloud_ai needs api_key, or GOOGLE_CLIENT_EMAIL, GOOGLE_PRIVATE_KEY, GOOGLE_VERTEX_PROJECT and GOOGLE_VERTEX_LOCATION in the env table', 'auth');
  }
}

/**
 * Part B providers: "api_key field > env sub-table key > startup fails with an error". The daemon
 * starts anyway (other providers may work): each provider that has no key, and no login or Vertex
 * service account instead, is named in a warning at start; a prompt to one of its models still
 * answers 40111.
 */
export function missingKeyWarnings(providers: Record<string, { type?: string; api_key?: string; oauth?: unknown; env?: Record<string, string>; temporary?: boolean }>): string[] {
  const out: string[] = [];
  for (const [id, p] of Object.entries(providers)) {
    const type = p.type as WireType | undefined;
    if (!type || !(type in ENV_KEYS) || p.oauth) continue;
    const env = p.env ?? {};
    if (p.api_key || firstOf(env, ENV_KEYS[type].key)) continue;
    if (type === 'cloud_ai' && env.GOOGLE_CLIENT_EMAIL && env.GOOGLE_PRIVATE_KEY && env.GOOGLE_VERTEX_PROJECT && env.GOOGLE_VERTEX_LOCATION) continue;
    out.push(`config.toml: provider "${id}" has no API key (set providers.${id}.api_key or ${ENV_KEYS[type].key.join(' / ')} in providers.${id}.env); prompts to its models will fail with 40111`);
  }
  return out;
}
