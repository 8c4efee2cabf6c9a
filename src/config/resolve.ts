import {
  Defaults, EFFORTS, PERMISSION_MODES, PRINT_BACKGROUND_MODES, PROVIDER_TYPES, SERVICE_KEYS, TOKEN_COUNTING_STRATEGIES,
  type PermissionModeName, type ServiceKey,
} from './defaults.ts';
import type { EnvOverrides } from './env.ts';
import { compact, DocReader, isTable, type Doc } from './read.ts';
import { isNetwork } from '../webfetch/addresses.ts';
import { missingKeyWarnings } from '../providers/wire/credentials.ts';
import { exposedPattern } from '../mcp/names.ts';

export interface ProviderConfig {
  type?: string;
  base_url?: string;
  default_model?: string;
  api_key?: string;
  oauth?: Doc;
  env?: Record<string, string>;
  custom_headers?: Record<string, string>;
  /** Synthesized from `SVC_MODEL_*`: in memory only, absent from config.toml. */
  temporary?: boolean;
}

export interface ServiceConfig {
  base_url?: string;
  api_key?: string;
  oauth?: Doc;
  custom_headers?: Record<string, string>;
  /**
   * `pymodel_fetch` only, our addition (docs/services.md): IP addresses or CIDR ranges that WebFetch may reach
   * although they are not public, when it fetches without a service. Default none.
   */
  allowed_private_networks?: string[];
}

/** The effective global configuration: file over defaults, env over file. Holds secrets: never send it as is. */
export interface ResolvedConfig {
  default_model?: string;
  default_permission_mode: PermissionModeName;
  default_plan_mode: boolean;
  merge_all_available_skills: boolean;
  extra_skill_dirs: string[];
  extra_agent_dirs: string[];
  builtin_product_skills: boolean;
  telemetry: boolean;
  auto_session_title: boolean;
  experimental: Record<string, boolean>;
  providers: Record<string, ProviderConfig>;
  models: Record<string, Doc>;
  secondary_model: { default_model?: string; models?: Record<string, string>; force: boolean; default_effort?: string };
  thinking: { enabled: boolean; effort?: string; keep: string };
  loop_control: { max_steps_per_turn?: number; max_attempts_per_step: number; reserved_context_size?: number; compaction_max_attempts: number };
  token_counting: { strategy: string };
  background: {
    max_running_tasks?: number; keep_alive_on_exit: boolean; kill_grace_period_ms: number; bash_auto_background_on_timeout: boolean;
    bash_task_timeout_s: number; print_background_mode: string; print_wait_ceiling_s: number; print_max_turns: number;
  };
  subagent: { timeout_ms: number };
  dynamic_workflow: { timeout_ms: number };
  mcp: { startup_timeout_ms: number; tool_timeout_ms: number };
  identity: { name: string; slug: string };
  tools: { enabled: string[]; disabled: string[] };
  read: { default_max_chars: number; max_chars: number };
  image: { max_edge_px: number; read_byte_budget: number };
  database: { base: boolean; search: boolean };
  watch: { enabled: boolean };
  services: Partial<Record<ServiceKey, ServiceConfig>>;
  permission: { rules: Doc[]; dangerous_command_guard: boolean };
  hooks: Doc[];
  /** Budgets of a new goal (docs/goals.md); 0 = no budget. */
  goal: { max_turns: number; max_tokens: number; max_wall_clock_ms: number };
  /** The plugin marketplace catalog (docs/plugins.md). */
  /** `default_catalog`: no `marketplace_url` in the file (the shipped catalog, or its mirror from `SVC_CODE_MARKETPLACE_URL`). */
  plugins: { marketplace_url: string; default_catalog: boolean };
}

/** Identity slug rule of Part B: lowercased, non-alphanumeric runs folded to `-`; `agent` when nothing is left. */
export function slugify(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug || 'agent';
}

function stringTable(r: DocReader, doc: Doc, key: string, path: string): Record<string, string> | undefined {
  const t = doc[key];
  if (t === undefined) return undefined;
  if (isTable(t) && Object.values(t).every((x) => typeof x === 'string')) return { ...(t as Record<string, string>) };
  r.warnings.push(`config.toml: ${path} must be a table of strings; ignored`);
  return undefined;
}

function resolveThinking(r: DocReader, raw: Doc, env: EnvOverrides): ResolvedConfig['thinking'] {
  const t = r.table(raw, 'thinking');
  let enabled = r.bool(t, 'enabled', 'thinking.enabled');
  const mode = r.pick(t, 'mode', 'thinking.mode', ['auto', 'on', 'off'] as const);
  if (mode !== undefined) r.warnings.push('config.toml: thinking.mode is deprecated since 0.21.0; use [thinking] enabled');
  const legacy = r.bool(raw, 'default_thinking', 'default_thinking');
  if (legacy !== undefined) r.warnings.push('config.toml: default_thinking is deprecated since 0.21.0; use [thinking] enabled');
  enabled ??= mode !== undefined ? mode !== 'off' : legacy;
  const keep = (env.domains.thinking?.keep as string | undefined) ?? r.str(t, 'keep', 'thinking.keep') ?? Defaults.thinking.keep;
  return compact({ enabled: enabled ?? Defaults.thinking.enabled, effort: r.pick(t, 'effort', 'thinking.effort', EFFORTS), keep });
}

function resolveLoop(r: DocReader, raw: Doc, env: EnvOverrides): ResolvedConfig['loop_control'] {
  const t = r.table(raw, 'loop_control');
  if (t.max_retries_per_step !== undefined) r.warnings.push('config.toml: loop_control.max_retries_per_step was renamed max_attempts_per_step in 0.32.0; the old key is ignored');
  if (t.max_steps_per_run !== undefined) r.warnings.push('config.toml: loop_control.max_steps_per_run was renamed max_steps_per_turn in 0.32.0; the old key is ignored');
  const e = env.domains.loop_control ?? {};
  return compact({
    max_steps_per_turn: (e.max_steps_per_turn as number | undefined) ?? r.int(t, 'max_steps_per_turn', 'loop_control.max_steps_per_turn'),
    max_attempts_per_step: (e.max_attempts_per_step as number | undefined) ?? r.int(t, 'max_attempts_per_step', 'loop_control.max_attempts_per_step', 1) ?? Defaults.loop_control.max_attempts_per_step,
    reserved_context_size: r.int(t, 'reserved_context_size', 'loop_control.reserved_context_size'),
    compaction_max_attempts: r.int(t, 'compaction_max_attempts', 'loop_control.compaction_max_attempts', 1) ?? Defaults.loop_control.compaction_max_attempts,
  });
}

function resolveBackground(r: DocReader, raw: Doc, env: EnvOverrides): ResolvedConfig['background'] {
  const t = r.table(raw, 'background');
  const d = Defaults.background;
  const p = (k: string) => `background.${k}`;
  return compact({
    max_running_tasks: r.int(t, 'max_running_tasks', p('max_running_tasks'), 1),
    keep_alive_on_exit: r.bool(t, 'keep_alive_on_exit', p('keep_alive_on_exit')) ?? d.keep_alive_on_exit,
    kill_grace_period_ms: r.int(t, 'kill_grace_period_ms', p('kill_grace_period_ms')) ?? d.kill_grace_period_ms,
    bash_auto_background_on_timeout: r.bool(t, 'bash_auto_background_on_timeout', p('bash_auto_background_on_timeout')) ?? d.bash_auto_background_on_timeout,
    bash_task_timeout_s: r.int(t, 'bash_task_timeout_s', p('bash_task_timeout_s')) ?? d.bash_task_timeout_s,
    print_background_mode: r.pick(t, 'print_background_mode', p('print_background_mode'), PRINT_BACKGROUND_MODES) ?? d.print_background_mode,
    print_wait_ceiling_s: r.int(t, 'print_wait_ceiling_s', p('print_wait_ceiling_s')) ?? d.print_wait_ceiling_s,
    print_max_turns: r.int(t, 'print_max_turns', p('print_max_turns')) ?? d.print_max_turns,
    ...(env.domains.background ?? {}),
  });
}

function resolveProviders(r: DocReader, raw: Doc): Record<string, ProviderConfig> {
  const out: Record<string, ProviderConfig> = {};
  for (const [id, t] of Object.entries(r.tableOfTables(raw, 'providers'))) {
    const p = (k: string) => `providers.${id}.${k}`;
    out[id] = compact({
      type: r.pick(t, 'type', p('type'), PROVIDER_TYPES),
      base_url: r.str(t, 'base_url', p('base_url')),
      default_model: r.str(t, 'default_model', p('default_model')),
      api_key: r.str(t, 'api_key', p('api_key')) || undefined,
      oauth: isTable(t.oauth) ? t.oauth : undefined,
      env: stringTable(r, t, 'env', p('env')),
      custom_headers: stringTable(r, t, 'custom_headers', p('custom_headers')),
    });
  }
  return out;
}

/** Part B "services" with its env rules: an env base URL is a separate endpoint; an env key alone replaces the credentials. */
function resolveServices(r: DocReader, raw: Doc, env: EnvOverrides): ResolvedConfig['services'] {
  const t = r.table(raw, 'services');
  const out: ResolvedConfig['services'] = {};
  for (const key of SERVICE_KEYS) {
    const s = isTable(t[key]) ? (t[key] as Doc) : undefined;
    const p = (k: string) => `services.${key}.${k}`;
    const file: ServiceConfig | undefined = s && compact({
      base_url: r.str(s, 'base_url', p('base_url')),
      api_key: r.str(s, 'api_key', p('api_key')) || undefined,
      oauth: isTable(s.oauth) ? s.oauth : undefined,
      custom_headers: stringTable(r, s, 'custom_headers', p('custom_headers')),
    });
    const e = env.services[key];
    if (e?.base_url) out[key] = compact({ base_url: e.base_url, api_key: e.api_key });
    else if (e?.api_key) out[key] = compact({ base_url: file?.base_url, custom_headers: file?.custom_headers, api_key: e.api_key });
    else if (file) out[key] = file;
    // Where the daemon itself may connect: not a credential, so kept whichever endpoint the env chose.
    const networks = s && key === 'pymodel_fetch' ? privateNetworks(r, s) : undefined;
    if (networks) out[key] = { ...out[key], allowed_private_networks: networks };
  }
  return out;
}

/** `[services.pymodel_fetch] allowed_private_networks`: entries that are no IP address or CIDR range are warned about and dropped. */
function privateNetworks(r: DocReader, s: Doc): string[] | undefined {
  const path = 'services.pymodel_fetch.allowed_private_networks';
  const list = r.strings(s, 'allowed_private_networks', path);
  if (!list) return undefined;
  const bad = list.filter((x) => !isNetwork(x.trim()));
  for (const x of bad) r.warnings.push(`config.toml: ${path} entry "${x}" is not an IP address or CIDR range; ignored`);
  return list.filter((x) => isNetwork(x.trim())).map((x) => x.trim());
}

function resolveTop(r: DocReader, raw: Doc) {
  const experimental = Object.fromEntries(Object.entries(r.table(raw, 'experimental')).map(([k, x]) => [k, x === true]));
  return {
    default_model: r.str(raw, 'default_model', 'default_model') || undefined,
    default_permission_mode: r.pick(raw, 'default_permission_mode', 'default_permission_mode', PERMISSION_MODES) ?? Defaults.default_permission_mode,
    default_plan_mode: r.bool(raw, 'default_plan_mode', 'default_plan_mode') ?? Defaults.default_plan_mode,
    merge_all_available_skills: r.bool(raw, 'merge_all_available_skills', 'merge_all_available_skills') ?? Defaults.merge_all_available_skills,
    extra_skill_dirs: r.strings(raw, 'extra_skill_dirs', 'extra_skill_dirs') ?? [],
    extra_agent_dirs: r.strings(raw, 'extra_agent_dirs', 'extra_agent_dirs') ?? [],
    builtin_product_skills: r.bool(raw, 'builtin_product_skills', 'builtin_product_skills') ?? Defaults.builtin_product_skills,
    // "disabled only when explicitly false"
    telemetry: raw.telemetry !== false,
    auto_session_title: raw.auto_session_title !== false,
    experimental,
  };
}

/** Resolves the raw document with Part B defaults, deprecated keys and env overrides. */
export function resolveConfig(raw: Doc, env: EnvOverrides): { config: ResolvedConfig; warnings: string[] } {
  const r = new DocReader();
  const t = (k: string) => r.table(raw, k);
  const ed = (k: string) => env.domains[k] ?? {};
  const sec = t('secondary_model');
  const identity = t('identity');
  const name = (ed('identity').name as string | undefined) ?? r.str(identity, 'name', 'identity.name') ?? Defaults.identity.name;
  const read = t('read');
  const maxChars = r.int(read, 'max_chars', 'read.max_chars', 1) ?? Defaults.read.max_chars;
  const perm = t('permission');
  const config: ResolvedConfig = {
    ...resolveTop(r, raw),
    providers: resolveProviders(r, raw),
    models: r.tableOfTables(raw, 'models'),
    secondary_model: compact({
      default_model: r.str(sec, 'default_model', 'secondary_model.default_model'),
      models: stringTable(r, sec, 'models', 'secondary_model.models'),
      force: r.bool(sec, 'force', 'secondary_model.force') ?? false,
      default_effort: r.str(sec, 'default_effort', 'secondary_model.default_effort'),
    }),
    thinking: resolveThinking(r, raw, env),
    loop_control: resolveLoop(r, raw, env),
    token_counting: { strategy: r.pick(t('token_counting'), 'strategy', 'token_counting.strategy', TOKEN_COUNTING_STRATEGIES) ?? Defaults.token_counting.strategy, ...ed('token_counting') } as { strategy: string },
    background: resolveBackground(r, raw, env),
    subagent: { timeout_ms: r.int(t('subagent'), 'timeout_ms', 'subagent.timeout_ms') ?? Defaults.subagent.timeout_ms, ...ed('subagent') } as { timeout_ms: number },
    dynamic_workflow: { timeout_ms: r.int(t('dynamic_workflow'), 'timeout_ms', 'dynamic_workflow.timeout_ms') ?? Defaults.dynamic_workflow.timeout_ms, ...ed('dynamic_workflow') } as { timeout_ms: number },
    mcp: {
      startup_timeout_ms: r.int(t('mcp'), 'startup_timeout_ms', 'mcp.startup_timeout_ms') ?? Defaults.mcp.startup_timeout_ms,
      tool_timeout_ms: r.int(t('mcp'), 'tool_timeout_ms', 'mcp.tool_timeout_ms') ?? Defaults.mcp.tool_timeout_ms,
      ...ed('mcp'),
    } as ResolvedConfig['mcp'],
    identity: { name, slug: (ed('identity').slug as string | undefined) ?? r.str(identity, 'slug', 'identity.slug') ?? slugify(name) },
    tools: { enabled: r.strings(t('tools'), 'enabled', 'tools.enabled') ?? [], disabled: r.strings(t('tools'), 'disabled', 'tools.disabled') ?? [] },
    read: { max_chars: maxChars, default_max_chars: Math.min(maxChars, r.int(read, 'default_max_chars', 'read.default_max_chars', 1) ?? Defaults.read.default_max_chars) },
    image: {
      max_edge_px: r.int(t('image'), 'max_edge_px', 'image.max_edge_px', 1) ?? Defaults.image.max_edge_px,
      read_byte_budget: r.int(t('image'), 'read_byte_budget', 'image.read_byte_budget', 1) ?? Defaults.image.read_byte_budget,
      ...ed('image'),
    } as ResolvedConfig['image'],
    database: {
      base: r.bool(t('database'), 'base', 'database.base') ?? Defaults.database.base,
      search: r.bool(t('database'), 'search', 'database.search') ?? Defaults.database.search,
      ...ed('database'),
    } as ResolvedConfig['database'],
    watch: { enabled: r.bool(t('watch'), 'enabled', 'watch.enabled') ?? Defaults.watch.enabled, ...ed('watch') } as { enabled: boolean },
    services: resolveServices(r, raw, env),
    permission: {
      rules: r.tables(perm, 'rules', 'permission.rules'),
      dangerous_command_guard: (ed('permission').dangerous_command_guard as boolean | undefined) ?? r.bool(perm, 'dangerous_command_guard', 'permission.dangerous_command_guard') ?? Defaults.permission.dangerous_command_guard,
    },
    hooks: r.tables(raw, 'hooks', 'hooks'),
    goal: {
      max_turns: r.int(t('goal'), 'max_turns', 'goal.max_turns') ?? Defaults.goal.max_turns,
      max_tokens: r.int(t('goal'), 'max_tokens', 'goal.max_tokens') ?? Defaults.goal.max_tokens,
      max_wall_clock_ms: r.int(t('goal'), 'max_wall_clock_ms', 'goal.max_wall_clock_ms') ?? Defaults.goal.max_wall_clock_ms,
    },
    plugins: ((url) => ({
      marketplace_url: url ?? (env.marketplace_url || Defaults.plugins.marketplace_url), default_catalog: url === undefined,
    }))(r.str(t('plugins'), 'marketplace_url', 'plugins.marketplace_url')),
  };
  mergeEnvModel(config, env, r.warnings);
  // docs/journal.md "database.base": the session index is the journal's own projection; there is no other store to read.
  if (!config.database.base) r.warnings.push('database.base = false has no effect: session metadata is always read from the session index, the journal\'s projection (docs/journal.md "database.base")');
  return { config, warnings: [...r.warnings, ...toolWarnings(config.tools), ...mcpNameWarnings(config), ...missingKeyWarnings(config.providers)] };
}

/** The `SVC_MODEL_*` temporary model: over the file, and the default model only when the file names none. */
function mergeEnvModel(config: ResolvedConfig, env: EnvOverrides, warnings: string[]): void {
  const m = env.model;
  if (!m) return;
  if (config.providers[m.providerId]) warnings.push(`config.toml: provider "${m.providerId}" is shadowed by the SVC_MODEL_* temporary model`);
  config.providers[m.providerId] = { ...m.provider, temporary: true };
  config.models = { ...config.models, [m.alias]: { ...m.model } };
  config.default_model ??= m.alias;
}

/** Part B "tools": entries that can never match produce a warning (unknown names need the tool registry: not checked here). */
function toolWarnings(tools: ResolvedConfig['tools']): string[] {
  const out: string[] = [];
  for (const list of ['enabled', 'disabled'] as const) {
    for (const name of tools[list]) {
      if (name.includes('*') && !name.startsWith('mcp__')) out.push(`config.toml: tools.${list} entry "${name}" uses a wildcard outside an mcp__ pattern and never matches`);
      else if (name.startsWith('mcp__') && name.split('__').length < 3) out.push(`config.toml: tools.${list} entry "${name}" lacks the tool segment (mcp__<server>__<tool>) and never matches`);
    }
  }
  return out;
}

/**
 * MCP tools are exposed as `mcp__<server>__<tool>` with characters model APIs refuse replaced by `_`
 * (src/mcp/names.ts): a rule or tools entry naming the raw server (`mcp__docs.site__*`) never matches.
 */
function mcpNameWarnings(config: ResolvedConfig): string[] {
  const out: string[] = [];
  const check = (where: string, written: string, tool: string) => {
    const fixed = exposedPattern(tool);
    if (tool.startsWith('mcp__') && fixed !== tool) {
      out.push(`config.toml: ${where} "${written}" never matches: MCP tools are exposed as ${fixed} (characters other than letters, digits, _ and - become _); write "${written.replace(tool, fixed)}"`);
    }
  };
  config.permission.rules.forEach((rule, i) => {
    if (typeof rule.pattern !== 'string') return;
    check(`permission.rules[${i}] pattern`, rule.pattern, rule.pattern.trim().split('(')[0]!.trim());
  });
  for (const list of ['enabled', 'disabled'] as const) for (const name of config.tools[list]) check(`tools.${list} entry`, name, name);
  return out;
}
