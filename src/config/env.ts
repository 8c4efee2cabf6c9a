import { readEnvModel, type EnvModel } from '../providers/models/env.ts';
import { PRINT_BACKGROUND_MODES, TOKEN_COUNTING_STRATEGIES, type ServiceKey } from './defaults.ts';

type Kind = 'int' | 'bool' | 'string' | readonly string[];

/** Environment overrides of Part B, as [variable, domain, field, kind]. Read once at start, never written back. */
const TABLE: [string, string, string, Kind][] = [
  ['SVC_LOOP_MAX_STEPS_PER_TURN', 'loop_control', 'max_steps_per_turn', 'int'],
  ['SVC_LOOP_MAX_ATTEMPTS_PER_STEP', 'loop_control', 'max_attempts_per_step', 'int'],
  ['SVC_TOKEN_COUNTING_STRATEGY', 'token_counting', 'strategy', TOKEN_COUNTING_STRATEGIES],
  ['SVC_CODE_BACKGROUND_KEEP_ALIVE_ON_EXIT', 'background', 'keep_alive_on_exit', 'bool'],
  ['SVC_CODE_BACKGROUND_MAX_RUNNING_TASKS', 'background', 'max_running_tasks', 'int'],
  ['SVC_CODE_BACKGROUND_BASH_TASK_TIMEOUT_S', 'background', 'bash_task_timeout_s', 'int'],
  ['SVC_CODE_BACKGROUND_PRINT_BACKGROUND_MODE', 'background', 'print_background_mode', PRINT_BACKGROUND_MODES],
  ['SVC_CODE_BACKGROUND_PRINT_WAIT_CEILING_S', 'background', 'print_wait_ceiling_s', 'int'],
  ['SVC_CODE_BACKGROUND_PRINT_MAX_TURNS', 'background', 'print_max_turns', 'int'],
  ['SVC_SUBAGENT_TIMEOUT_MS', 'subagent', 'timeout_ms', 'int'],
  ['SVC_CODE_DYNAMIC_WORKFLOW_TIMEOUT_MS', 'dynamic_workflow', 'timeout_ms', 'int'],
  ['SVC_MCP_STARTUP_TIMEOUT_MS', 'mcp', 'startup_timeout_ms', 'int'],
  ['SVC_MCP_TOOL_TIMEOUT_MS', 'mcp', 'tool_timeout_ms', 'int'],
  ['SVC_CODE_IDENTITY_NAME', 'identity', 'name', 'string'],
  ['SVC_CODE_IDENTITY_SLUG', 'identity', 'slug', 'string'],
  ['SVC_IMAGE_MAX_EDGE_PX', 'image', 'max_edge_px', 'int'],
  ['SVC_IMAGE_READ_BYTE_BUDGET', 'image', 'read_byte_budget', 'int'],
  ['SVC_CODE_PERSISTENCE_MINIDB_READMODEL', 'database', 'base', 'bool'],
  ['SVC_CODE_SEARCH_WORKER', 'database', 'search', 'bool'],
  ['SVC_CODE_WATCH', 'watch', 'enabled', 'bool'],
  ['SVC_CODE_DANGEROUS_COMMAND_GUARD', 'permission', 'dangerous_command_guard', 'bool'],
  ['SVC_MODEL_THINKING_KEEP', 'thinking', 'keep', 'string'],
];

const SERVICE_ENV: Record<ServiceKey, { base: string; key: string }> = {
  pymodel_search: { base: 'SVC_WEB_SEARCH_BASE_URL', key: 'SVC_WEB_SEARCH_API_KEY' },
  pymodel_fetch: { base: 'SVC_WEB_FETCH_BASE_URL', key: 'SVC_WEB_FETCH_API_KEY' },
};

export interface EnvOverrides {
  /** domain -> field -> value, applied over the file. */
  domains: Record<string, Record<string, unknown>>;
  services: Partial<Record<ServiceKey, { base_url?: string; api_key?: string }>>;
  /** Temporary model of `SVC_MODEL_*` (in memory only). */
  model?: EnvModel;
  /** `SVC_CODE_MARKETPLACE_URL`: the default plugin catalog when config.toml names none. */
  marketplace_url?: string;
  warnings: string[];
}

/** No override (a config service built without the environment). */
export const NO_ENV_OVERRIDES: EnvOverrides = { domains: {}, services: {}, warnings: [] };

function convert(raw: string, kind: Kind): unknown {
  const s = raw.trim();
  if (kind === 'int') return /^\d+$/.test(s) ? Number(s) : undefined;
  if (kind === 'bool') return ['true', '1'].includes(s.toLowerCase()) ? true : ['false', '0'].includes(s.toLowerCase()) ? false : undefined;
  if (kind === 'string') return s || undefined;
  return kind.includes(s) ? s : undefined;
}

/** Reads every override of Part B from `env` (src/app/settings.ts, at start); invalid values are ignored with a warning. */
export function readEnvOverrides(env: NodeJS.ProcessEnv): EnvOverrides {
  const out: EnvOverrides = { domains: {}, services: {}, warnings: [] };
  const set = (name: string, domain: string, field: string, kind: Kind) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return false;
    const value = convert(raw, kind);
    if (value === undefined) {
      out.warnings.push(`environment variable ${name} has an invalid value; ignored`);
      return false;
    }
    (out.domains[domain] ??= {})[field] = value;
    return true;
  };
  for (const [name, domain, field, kind] of TABLE) set(name, domain, field, kind);
  if (out.domains.loop_control?.max_attempts_per_step === undefined && env.SVC_LOOP_MAX_RETRIES_PER_STEP) {
    out.warnings.push('environment variable SVC_LOOP_MAX_RETRIES_PER_STEP is deprecated; use SVC_LOOP_MAX_ATTEMPTS_PER_STEP');
    set('SVC_LOOP_MAX_RETRIES_PER_STEP', 'loop_control', 'max_attempts_per_step', 'int');
  }
  for (const [service, names] of Object.entries(SERVICE_ENV) as [ServiceKey, { base: string; key: string }][]) {
    const base_url = env[names.base] || undefined;
    const api_key = env[names.key] || undefined;
    if (base_url || api_key) out.services[service] = { ...(base_url ? { base_url } : {}), ...(api_key ? { api_key } : {}) };
  }
  const temp = readEnvModel(env);
  out.model = temp.model;
  out.warnings.push(...temp.warnings);
  const marketplace = env.SVC_CODE_MARKETPLACE_URL;
  if (marketplace) out.marketplace_url = marketplace;
  return out;
}
