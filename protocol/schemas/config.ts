import * as v from 'valibot';
import { EFFORTS, PERMISSION_MODES, PRINT_BACKGROUND_MODES, PROVIDER_TYPES, TOKEN_COUNTING_STRATEGIES } from './enums.ts';
import { FreeObject, Id, LIMITS, Line, PathString, boundedArray, boundedJson, boundedString, objectOnly } from './common.ts';

/** A patch table: unmodeled keys kept (written to config.toml), arrays refused. */
const loose = <E extends v.ObjectEntries>(entries: E) => objectOnly(v.looseObject(entries));

/** In a merge-patch, `null` deletes the key. */
const opt = <S extends v.GenericSchema>(s: S) => v.optional(v.nullable(s));
const Int = (min: number) => v.pipe(v.number(), v.integer('must be an integer'), v.minValue(min, `must be >= ${min}`), v.maxValue(Number.MAX_SAFE_INTEGER, `must be <= ${Number.MAX_SAFE_INTEGER}`));
/** Headers and env tables: names are ids, values one line. */
const StringTable = v.pipe(objectOnly(v.record(Id, v.nullable(Line))), v.maxEntries(LIMITS.items, `at most ${LIMITS.items} entries`));
const Table = FreeObject;
const Word = v.pipe(v.string(), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`));
/** A map keyed by ids (providers, models, flags). */
const IdMap = <S extends v.GenericSchema>(value: S, max: number = LIMITS.items) => v.pipe(objectOnly(v.record(Id, value)), v.maxEntries(max, `at most ${max} entries`));

/** The whole patch as JSON (unmodeled keys included); the written config.toml is capped too (CONFIG_FILE_MAX_BYTES). */
export const CONFIG_PATCH_BOUNDS = { depth: 16, bytes: 256 * 1024, entries: 10_000 };

const ProviderPatch = loose({
  type: opt(v.picklist(PROVIDER_TYPES, `must be one of ${PROVIDER_TYPES.join(', ')}`)),
  api_key: opt(Line),
  base_url: opt(Line),
  default_model: opt(Word),
  oauth: opt(Table),
  env: opt(StringTable),
  custom_headers: opt(StringTable),
  /** Read-only (GET echoes it); ignored. */
  has_api_key: v.optional(v.boolean()),
});

export const CAPABILITIES = ['thinking', 'always_thinking', 'image_in', 'video_in', 'audio_in', 'tool_use', 'dynamically_loaded_tools'] as const;
const modelFields = {
  max_context_size: opt(Int(1)),
  max_input_size: opt(Int(1)),
  max_output_size: opt(Int(1)),
  capabilities: opt(boundedArray(v.picklist(CAPABILITIES, `must be one of ${CAPABILITIES.join(', ')}`), 100)),
  display_name: opt(Line),
  reasoning_key: opt(Word),
  adaptive_thinking: opt(v.boolean()),
  support_efforts: opt(boundedArray(Word, 100)),
  default_effort: opt(Word),
  off_effort: opt(Word),
};

/** `[models."<alias>".overrides]`: provider, model, protocol, beta_api and base_url are not accepted. */
const ModelOverridesPatch = objectOnly(v.strictObject(modelFields, 'not an accepted override key'));

const ModelPatch = loose({
  provider: opt(Id),
  model: opt(Id),
  base_url: opt(Line),
  ...modelFields,
  overrides: opt(ModelOverridesPatch),
});

const SecondaryModelPatch = loose({
  default_model: opt(Id),
  models: opt(v.pipe(objectOnly(v.record(Id, v.nullable(Word))), v.maxEntries(LIMITS.items, `at most ${LIMITS.items} entries`))),
  force: opt(v.boolean()),
  default_effort: opt(v.picklist(EFFORTS)),
});

const ThinkingPatch = loose({
  enabled: opt(v.boolean()),
  effort: opt(v.picklist(EFFORTS, `must be one of ${EFFORTS.join(', ')}`)),
  keep: opt(Word),
});

const LoopControlPatch = loose({
  max_steps_per_turn: opt(Int(0)),
  max_attempts_per_step: opt(Int(1)),
  reserved_context_size: opt(Int(0)),
  compaction_max_attempts: opt(Int(1)),
});

const BackgroundPatch = loose({
  max_running_tasks: opt(Int(1)),
  keep_alive_on_exit: opt(v.boolean()),
  kill_grace_period_ms: opt(Int(0)),
  bash_auto_background_on_timeout: opt(v.boolean()),
  bash_task_timeout_s: opt(Int(0)),
  print_background_mode: opt(v.picklist(PRINT_BACKGROUND_MODES)),
  print_wait_ceiling_s: opt(Int(0)),
  print_max_turns: opt(Int(0)),
});

const TimeoutPatch = loose({ timeout_ms: opt(Int(0)) });

const ServicePatch = loose({
  base_url: opt(Line),
  api_key: opt(Line),
  oauth: opt(Table),
  custom_headers: opt(StringTable),
  allowed_private_networks: opt(boundedArray(Line)),
  has_api_key: v.optional(v.boolean()),
  has_oauth: v.optional(v.boolean()),
});

const PermissionRule = loose({
  decision: v.picklist(['allow', 'deny', 'ask']),
  scope: v.optional(v.picklist(['turn-override', 'session-runtime', 'project', 'user'])),
  pattern: boundedString(LIMITS.lineChars),
  reason: v.optional(Line),
});

const Hook = loose({
  event: Id,
  matcher: v.optional(Line),
  command: boundedString(LIMITS.lineChars),
  timeout: v.optional(v.pipe(v.number(), v.minValue(0, 'must be >= 0'), v.maxValue(Number.MAX_SAFE_INTEGER, `must be <= ${Number.MAX_SAFE_INTEGER}`))),
});

/** POST /api/v1/config: merge-patch of any subset of the GET fields except `raw`. */
export const ConfigPatchBody = boundedJson(objectOnly(v.strictObject({
  providers: opt(IdMap(v.nullable(ProviderPatch))),
  default_provider: opt(Id),
  default_model: opt(Id),
  models: opt(IdMap(v.nullable(ModelPatch), 10_000)),
  thinking: opt(ThinkingPatch),
  /** Alias of default_plan_mode. */
  plan_mode: opt(v.boolean()),
  /** true maps to default_permission_mode=yolo; false is ignored. */
  yolo: opt(v.boolean()),
  default_permission_mode: opt(v.picklist(PERMISSION_MODES, `must be one of ${PERMISSION_MODES.join(', ')}`)),
  default_plan_mode: opt(v.boolean()),
  permission: opt(loose({ rules: opt(boundedArray(PermissionRule)), dangerous_command_guard: opt(v.boolean()) })),
  hooks: opt(boundedArray(Hook)),
  services: opt(loose({ pymodel_search: opt(ServicePatch), pymodel_fetch: opt(ServicePatch) })),
  merge_all_available_skills: opt(v.boolean()),
  extra_skill_dirs: opt(boundedArray(PathString)),
  extra_agent_dirs: opt(boundedArray(PathString)),
  builtin_product_skills: opt(v.boolean()),
  loop_control: opt(LoopControlPatch),
  background: opt(BackgroundPatch),
  subagent: opt(TimeoutPatch),
  dynamic_workflow: opt(TimeoutPatch),
  secondary_model: opt(SecondaryModelPatch),
  experimental: opt(IdMap(v.nullable(v.boolean()))),
  telemetry: opt(v.boolean()),
  auto_session_title: opt(v.boolean()),
  token_counting: opt(loose({ strategy: opt(v.picklist(TOKEN_COUNTING_STRATEGIES)) })),
  mcp: opt(loose({ startup_timeout_ms: opt(Int(0)), tool_timeout_ms: opt(Int(0)) })),
  identity: opt(loose({ name: opt(Id), slug: opt(Id) })),
  tools: opt(loose({ enabled: opt(boundedArray(Id)), disabled: opt(boundedArray(Id)) })),
  read: opt(loose({ default_max_chars: opt(Int(1)), max_chars: opt(Int(1)) })),
  image: opt(loose({ max_edge_px: opt(Int(1)), read_byte_budget: opt(Int(1)) })),
  database: opt(loose({ base: opt(v.boolean()), search: opt(v.boolean()) })),
  watch: opt(loose({ enabled: opt(v.boolean()) })),
  raw: v.optional(v.never('raw is read-only; patch the modeled fields instead')),
}, 'unknown config field')), CONFIG_PATCH_BOUNDS);
export type ConfigPatch = v.InferOutput<typeof ConfigPatchBody>;

const ViewTable = v.record(v.string(), v.unknown());
const ProviderView = v.object({ type: v.string(), base_url: v.optional(v.string()), default_model: v.optional(v.string()), has_api_key: v.boolean() });
const ServiceView = v.object({
  base_url: v.optional(v.string()), has_api_key: v.boolean(), has_oauth: v.boolean(), custom_headers: v.optional(v.record(v.string(), v.string())),
  allowed_private_networks: v.optional(v.pipe(v.array(v.string()), v.description(
    'pymodel_fetch only: IP addresses or CIDR ranges WebFetch may reach although they are not public (when it fetches without a service)',
  ))),
});

/** GET /api/v1/config data: the resolved global config, secrets redacted. */
export const ConfigView = loose({
  providers: v.record(v.string(), ProviderView),
  default_provider: v.string(),
  default_model: v.pipe(v.string(), v.description('default model alias; empty when unset')),
  models: v.record(v.string(), ViewTable),
  thinking: v.object({ enabled: v.boolean(), effort: v.optional(v.string()), keep: v.string() }),
  plan_mode: v.boolean(),
  yolo: v.pipe(v.boolean(), v.description('derived: default_permission_mode is yolo')),
  default_permission_mode: v.picklist(PERMISSION_MODES),
  default_plan_mode: v.boolean(),
  permission: v.object({ rules: v.array(ViewTable), dangerous_command_guard: v.boolean() }),
  hooks: v.array(ViewTable),
  services: v.record(v.string(), ServiceView),
  merge_all_available_skills: v.boolean(),
  extra_skill_dirs: v.array(v.string()),
  loop_control: ViewTable,
  background: ViewTable,
  subagent: ViewTable,
  secondary_model: ViewTable,
  experimental: v.record(v.string(), v.boolean()),
  telemetry: v.boolean(),
  auto_session_title: v.boolean(),
  raw: v.pipe(ViewTable, v.description('raw parsed config.toml including unmodeled fields; secrets replaced by "[redacted]"')),
});

/** Payload of the global `event.config.changed`. */
export const ConfigChangedPayload = v.object({ changedFields: v.array(v.string()), config: ConfigView });
