import { compact, isTable, type Doc } from './read.ts';
import type { ProviderConfig, ResolvedConfig, ServiceConfig } from './resolve.ts';

/** Placeholder that replaces every secret in a GET; a POST that echoes it back leaves the stored secret alone. */
export const REDACTED = '[redacted]';

/** Keys whose values are secrets wherever they appear. */
const SECRET_KEY = /^(api_?key|token|access_token|refresh_token|id_token|secret|client_secret|password)$/i;
/** Tables whose every value is (or may be) a secret. */
const SECRET_TABLES = new Set(['custom_headers']);
/** `env` sub-tables hold credential fallbacks: names that look like credentials are redacted. */
const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD)/i;

/** Copies `x` with every secret replaced by REDACTED (keys kept, so clients see what is set). */
export function redact(x: unknown, parentKey = '', grandparentKey = ''): unknown {
  if (Array.isArray(x)) return x.map((item) => redact(item, parentKey, grandparentKey));
  if (!isTable(x)) return x;
  // A provider or service named `env` is not an `env` table.
  const envTable = parentKey === 'env' && grandparentKey !== 'providers' && grandparentKey !== 'services';
  const out: Doc = {};
  for (const [k, val] of Object.entries(x)) {
    if (val === undefined) continue;
    const secret = SECRET_KEY.test(k) || SECRET_TABLES.has(parentKey) || (envTable && SECRET_ENV_NAME.test(k))
      // OAuth tables are credential references: only the storage kind is shown.
      || (parentKey === 'oauth' && k !== 'storage');
    out[k] = secret ? redactAll(val) : redact(val, k, parentKey);
  }
  return out;
}

function redactAll(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(redactAll);
  if (isTable(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, redactAll(v)]));
  return REDACTED;
}

function hasApiKey(p: ProviderConfig): boolean {
  if (p.api_key) return true;
  return Object.entries(p.env ?? {}).some(([k, v]) => /KEY/i.test(k) && v.length > 0);
}

function providerView(p: ProviderConfig) {
  return compact({ type: p.type ?? '', base_url: p.base_url, default_model: p.default_model, has_api_key: hasApiKey(p) });
}

function serviceView(s: ServiceConfig) {
  return compact({
    base_url: s.base_url,
    has_api_key: Boolean(s.api_key),
    has_oauth: Boolean(s.oauth),
    custom_headers: s.custom_headers && Object.fromEntries(Object.keys(s.custom_headers).map((k) => [k, REDACTED])),
    allowed_private_networks: s.allowed_private_networks,
  });
}

/** The provider that serves the default model, else the first configured one. */
function defaultProvider(c: ResolvedConfig, raw: Doc): string {
  if (typeof raw.default_provider === 'string') return raw.default_provider;
  const model = c.default_model ? c.models[c.default_model] : undefined;
  if (model && typeof model.provider === 'string') return model.provider;
  return Object.keys(c.providers)[0] ?? '';
}

const map = <T, U>(rec: Record<string, T>, f: (x: T) => U) => Object.fromEntries(Object.entries(rec).map(([k, x]) => [k, f(x)]));

/**
 * GET /api/v1/config: the Core table's fields, plus the other Part B domains resolved.
 * A final redaction pass guarantees no secret leaves, whatever a hand-edited file holds.
 */
export function toConfigView(c: ResolvedConfig, raw: Doc): Doc {
  const view: Doc = {
    providers: map(c.providers, providerView),
    default_provider: defaultProvider(c, raw),
    default_model: c.default_model ?? '',
    models: c.models,
    thinking: c.thinking,
    plan_mode: c.default_plan_mode,
    yolo: c.default_permission_mode === 'yolo',
    default_permission_mode: c.default_permission_mode,
    default_plan_mode: c.default_plan_mode,
    permission: c.permission,
    hooks: c.hooks,
    services: map(c.services as Record<string, ServiceConfig>, serviceView),
    merge_all_available_skills: c.merge_all_available_skills,
    extra_skill_dirs: c.extra_skill_dirs,
    extra_agent_dirs: c.extra_agent_dirs,
    builtin_product_skills: c.builtin_product_skills,
    loop_control: c.loop_control,
    background: c.background,
    subagent: c.subagent,
    dynamic_workflow: c.dynamic_workflow,
    secondary_model: c.secondary_model,
    experimental: c.experimental,
    telemetry: c.telemetry,
    auto_session_title: c.auto_session_title,
    token_counting: c.token_counting,
    mcp: c.mcp,
    identity: c.identity,
    tools: c.tools,
    read: c.read,
    image: c.image,
    database: c.database,
    watch: c.watch,
    raw,
  };
  return redact(view) as Doc;
}
