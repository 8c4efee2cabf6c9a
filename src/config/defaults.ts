/** Defaults of Part B "Configuration files"; one place so GET, the engine and docs agree. */
export const Defaults = {
  default_permission_mode: 'manual',
  default_plan_mode: false,
  merge_all_available_skills: true,
  builtin_product_skills: true,
  telemetry: true,
  auto_session_title: true,
  thinking: { enabled: true, keep: 'all' },
  loop_control: { max_attempts_per_step: 10, compaction_max_attempts: 5 },
  token_counting: { strategy: 'measured+estimated' },
  background: {
    keep_alive_on_exit: false,
    kill_grace_period_ms: 5000,
    bash_auto_background_on_timeout: true,
    bash_task_timeout_s: 600,
    print_background_mode: 'steer',
    print_wait_ceiling_s: 2147483,
    print_max_turns: 100000,
  },
  subagent: { timeout_ms: 7_200_000 },
  dynamic_workflow: { timeout_ms: 7_200_000 },
  mcp: { startup_timeout_ms: 30_000, tool_timeout_ms: 60_000 },
  goal: { max_turns: 50, max_tokens: 0, max_wall_clock_ms: 0 },
  plugins: { marketplace_url: 'https://marketplace.svc-code.dev/v1/catalog.json' },
  identity: { name: 'svc-code' },
  read: { default_max_chars: 100_000, max_chars: 500_000 },
  image: { max_edge_px: 2000, read_byte_budget: 262_144 },
  database: { base: true, search: true },
  watch: { enabled: false },
  permission: { dangerous_command_guard: true },
} as const;

export { EFFORTS, PERMISSION_MODES, PRINT_BACKGROUND_MODES, PROVIDER_TYPES, TOKEN_COUNTING_STRATEGIES, type PermissionModeName } from '../../protocol/schemas/enums.ts';
export const SERVICE_KEYS = ['pymodel_search', 'pymodel_fetch'] as const;
export type ServiceKey = (typeof SERVICE_KEYS)[number];

/** The document written on first run: the commonly edited top-level defaults, spelled out. */
export const FIRST_RUN_DOCUMENT: Record<string, unknown> = {
  default_permission_mode: Defaults.default_permission_mode,
  default_plan_mode: Defaults.default_plan_mode,
  merge_all_available_skills: Defaults.merge_all_available_skills,
  telemetry: Defaults.telemetry,
  auto_session_title: Defaults.auto_session_title,
};

/** Debounce window of `event.config.changed`; `SVC_CODE_CONFIG_EVENT_WINDOW_MS` overrides (tests). */
export const CHANGE_WINDOW_MS = 200;
