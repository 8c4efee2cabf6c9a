import type { AuthService } from '../auth/service.ts';
import { EFFORTS } from '../config/defaults.ts';
import type { ConfigService } from '../config/service.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { Doc } from '../config/read.ts';
import type { ProviderConfig, ResolvedConfig } from '../config/resolve.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import { resolveAlias } from '../providers/models/items.ts';
import { WireConfigError } from '../providers/wire/errors.ts';
import { createModelClient } from '../providers/wire/factory.ts';
import type { ModelClient, ModelEntry, ProviderEntry, ThinkingRequest } from '../providers/wire/types.ts';

/** The managed provider's login: its access token goes in as the client's `api_key`. */
export type TokenSource = Pick<AuthService, 'getAccessToken'>;

/** A model alias resolved to its provider and effective record (overrides applied). */
export interface ResolvedModel {
  alias: string;
  providerId: string;
  provider: ProviderConfig;
  record: Doc;
}

/**
 * Session model choice: the prompt's `model` > the session's `agent_config.model` >
 * the global `default_model`. 40110 when no provider exists at all (a providerless
 * flat model needs none); 40113 when the alias (or its provider) does not resolve.
 */
export function resolveModel(c: ResolvedConfig, ...candidates: Array<string | undefined>): ResolvedModel {
  const alias = [...candidates, c.default_model].find((x) => typeof x === 'string' && x.length > 0);
  const flat = alias ? flatModel(c, alias) : undefined;
  if (flat) return flat;
  if (Object.keys(c.providers).length === 0) throw new ApiError(Codes.NO_PROVIDER, 'no provider configured');
  if (!alias) throw new ApiError(Codes.MODEL_NOT_RESOLVED, 'no model selected and no default_model configured', { details: { model_id: null } });
  const hit = resolveAlias(c, alias);
  if (!hit) throw new ApiError(Codes.MODEL_NOT_RESOLVED, `model not resolved: ${alias}`, { details: { model_id: alias } });
  const providerId = String(hit.record.provider ?? '');
  if (!hit.provider) {
    throw new ApiError(Codes.MODEL_NOT_RESOLVED, `provider ${providerId} of model ${alias} is not configured`, { details: { model_id: alias, provider_id: providerId } });
  }
  return { alias, providerId, provider: hit.provider, record: hit.record };
}

/**
 * A `[models."<alias>"]` entry with no `provider` but its own `base_url` (Core
 * `models_ready`): its provider is synthesized from `protocol` (the wire type,
 * default chat_compat), `base_url` and an optional `api_key`, under the alias as id.
 */
function flatModel(c: ResolvedConfig, alias: string): ResolvedModel | undefined {
  const hit = resolveAlias(c, alias);
  const r = hit?.record;
  if (!r || (r.provider !== undefined && r.provider !== '') || typeof r.base_url !== 'string' || !r.base_url) return undefined;
  const provider: ProviderConfig = { type: typeof r.protocol === 'string' && r.protocol ? r.protocol : 'chat_compat', base_url: r.base_url };
  if (typeof r.api_key === 'string' && r.api_key) provider.api_key = r.api_key;
  return { alias, providerId: alias, provider, record: { ...r, protocol: provider.type } };
}

/**
 * Checks what can be known before a turn: a provider with no credential (40111) or a
 * managed login that expired or was revoked (40112, from `auth.getAccessToken`).
 */
export async function checkCredential(deps: { auth: TokenSource; clients: ClientCache }, m: ResolvedModel): Promise<void> {
  if (m.provider.oauth) {
    try {
      await deps.auth.getAccessToken(m.providerId);
    } catch (err) {
      const codes: number[] = [Codes.PROVIDER_NO_CREDENTIAL, Codes.PROVIDER_CREDENTIAL_REJECTED];
      if (err instanceof ApiError && codes.includes(err.code)) throw new ApiError(err.code, err.message, { details: { provider_id: m.providerId } });
      throw err;
    }
    return;
  }
  // Building the client runs the wire code's own credential rules (listed env names,
  // Vertex service accounts), so 40111 answers exactly when the turn would lack a key.
  // Other configuration errors are left to fail the turn, as before.
  try {
    await clientFor(deps, m, deps.clients);
  } catch (err) {
    if (err instanceof WireConfigError && err.kind === 'auth') {
      throw new ApiError(Codes.PROVIDER_NO_CREDENTIAL, `provider ${m.providerId} has no credential`, { details: { provider_id: m.providerId } });
    }
  }
}

function modelEntry(record: Doc): ModelEntry {
  const str = (k: string) => (typeof record[k] === 'string' ? (record[k] as string) : undefined);
  return JSON.parse(JSON.stringify({
    model: String(record.model ?? ''),
    capabilities: capabilitiesOf(record),
    max_output_size: typeof record.max_output_size === 'number' ? record.max_output_size : undefined,
    reasoning_key: str('reasoning_key'),
    adaptive_thinking: typeof record.adaptive_thinking === 'boolean' ? record.adaptive_thinking : undefined,
    off_effort: str('off_effort'),
    base_url: str('base_url'),
    protocol: str('protocol'),
  }));
}

/** A model record's effective Part B `capabilities` (none when it declares none). */
export function capabilitiesOf(record: Doc): string[] {
  return Array.isArray(record.capabilities) ? record.capabilities.filter((c): c is string => typeof c === 'string') : [];
}

/** The production client for a resolved model; a managed provider's OAuth token goes in as `api_key`. Throws WireConfigError / ApiError. */
export async function clientFor(deps: { auth: TokenSource }, m: ResolvedModel, cache?: ClientCache): Promise<ModelClient> {
  const { type, base_url, api_key, env, custom_headers } = m.provider;
  const entry: ProviderEntry = { type, base_url, api_key, env, custom_headers };
  if (m.provider.oauth) entry.api_key = await deps.auth.getAccessToken(m.providerId);
  const model = modelEntry(m.record);
  // Building an AI SDK provider costs about a millisecond; reuse it while its settings are unchanged.
  return cache ? cache.get(entry, model) : createModelClient(entry, model);
}

/**
 * The client when it can be had without waiting (no managed login to refresh) and builds without
 * error; otherwise undefined, and the caller goes through `clientFor`.
 */
export function clientNow(m: ResolvedModel, cache: ClientCache): ModelClient | undefined {
  if (m.provider.oauth) return undefined;
  const { type, base_url, api_key, env, custom_headers } = m.provider;
  try {
    return cache.get({ type, base_url, api_key, env, custom_headers }, modelEntry(m.record));
  } catch {
    return undefined;
  }
}

/** Model clients by their full settings (credentials included, so a changed key builds a new one). */
export class ClientCache {
  private readonly clients = new Map<string, ModelClient>();
  /** `build` makes a client from its settings: the wire protocols, or `svc-code replay`'s recorded answers. */
  constructor(private readonly size = 64, private readonly build: (entry: ProviderEntry, model: ModelEntry) => ModelClient = createModelClient) {}

  get(entry: ProviderEntry, model: ReturnType<typeof modelEntry>): ModelClient {
    const key = JSON.stringify([entry, model]);
    let client = this.clients.get(key);
    if (!client) {
      client = this.build(entry, model);
      if (this.clients.size >= this.size) this.clients.delete(this.clients.keys().next().value!);
      this.clients.set(key, client);
    }
    return client;
  }
}

/**
 * The model and thinking a session's agent runs with when no prompt overrides them: the model bound
 * while live, else the profile's, else the default (40110 / 40113 when none resolves).
 */
export function sessionModel(deps: { config: ConfigService; live: LiveSessions }, session: { id: string; agent_config: unknown }): { model: ResolvedModel; thinking: ThinkingRequest } {
  const c = deps.config.current();
  const agentConfig = (session.agent_config ?? {}) as { model?: string; thinking?: string };
  const model = resolveModel(c, deps.live.get(session.id)?.model ?? undefined, agentConfig.model);
  return { model, thinking: resolveThinking(c, model.record, agentConfig.thinking) };
}

/** Thinking values a prompt or profile may name: an effort, or `off`. */
/** `on` is what the daemon reports for thinking without a set effort (clients send it back): on, effort from the next level. */
export const THINKING_VALUES = [...EFFORTS, 'off', 'on'] as const;

export function checkThinkingValue(value: string | undefined, field: string): void {
  if (value !== undefined && !(THINKING_VALUES as readonly string[]).includes(value)) {
    throw validationError([{ field, message: `must be one of ${THINKING_VALUES.join(', ')}` }]);
  }
}

/**
 * Part B "thinking": the prompt's level > the session profile's > `[thinking].effort`;
 * `enabled = false` forces it off; an effort the model does not list falls back to its
 * `default_effort`. The model's capabilities bound it: off for a model that does not declare
 * `thinking`, and on for an `always_thinking` one, whatever was asked.
 */
export function resolveThinking(c: ResolvedConfig, record: Doc, ...levels: Array<string | undefined>): ThinkingRequest {
  const keep = c.thinking.keep;
  const caps = capabilitiesOf(record);
  const always = caps.includes('always_thinking');
  if (!always && !caps.includes('thinking')) return { enabled: false };
  // `off` cannot turn an always-thinking model off: the next level down decides its effort.
  const all = [...levels, c.thinking.effort];
  const first = all.find((x) => typeof x === 'string' && x.length > 0 && !(always && x === 'off'));
  if (!always && (!c.thinking.enabled || first === 'off')) return { enabled: false };
  const level = first === 'on' ? all.find((x) => typeof x === 'string' && x.length > 0 && x !== 'on' && x !== 'off') : first;
  const supported = Array.isArray(record.support_efforts) ? (record.support_efforts as string[]) : undefined;
  const fallback = typeof record.default_effort === 'string' ? record.default_effort : undefined;
  const effort = level && (!supported || supported.includes(level)) ? level : fallback;
  return JSON.parse(JSON.stringify({ enabled: true, effort, keep }));
}
