import * as v from 'valibot';
import { Metadata, NonEmptyString, PermissionMode, QueryBool, queryInt } from './common.ts';

export const Usage = v.object({
  input_tokens: v.number(), output_tokens: v.number(), cache_read_tokens: v.number(), cache_creation_tokens: v.number(),
  context_tokens: v.number(), context_limit: v.optional(v.number()), total_cost_usd: v.optional(v.number()), turn_count: v.optional(v.number()),
});

/** Core "Session object". */
export const SessionObject = v.object({
  id: v.string(),
  workspace_id: v.string(),
  title: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
  archived: v.boolean(),
  archived_at: v.optional(v.string()),
  busy: v.boolean(),
  main_turn_active: v.boolean(),
  pending_interaction: v.picklist(['none', 'approval', 'question']),
  last_turn_reason: v.optional(v.picklist(['completed', 'cancelled', 'failed'])),
  last_prompt: v.optional(v.string()),
  metadata: v.objectWithRest({ cwd: v.string() }, v.unknown()),
  agent_config: v.object({ model: v.string() }),
  usage: Usage,
  permission_rules: v.array(v.unknown()),
  message_count: v.number(),
  last_seq: v.number(),
});

/** agent_config fields a profile update may carry. */
export const AgentConfigPatch = v.object({
  model: v.optional(v.string()),
  thinking: v.optional(v.string()),
  permission_mode: v.optional(PermissionMode),
  plan_mode: v.optional(v.boolean()),
  dynamic_workflow_mode: v.optional(v.boolean()),
  goal_objective: v.optional(NonEmptyString),
  goal_control: v.optional(v.picklist(['pause', 'resume', 'cancel'])),
  system_prompt: v.optional(v.string()),
  tools: v.optional(v.array(v.string())),
  mcp_servers: v.optional(v.unknown()),
});

export const SessionCreateBody = v.object({
  workspace_id: v.optional(NonEmptyString),
  metadata: v.optional(v.objectWithRest({ cwd: v.optional(NonEmptyString) }, v.unknown())),
  title: v.optional(NonEmptyString),
  agent_config: v.optional(v.record(v.string(), v.unknown())),
});

export const SessionListQuery = v.object({
  before_id: v.optional(NonEmptyString),
  after_id: v.optional(NonEmptyString),
  page_size: v.optional(queryInt(1, 100)),
  busy: v.optional(QueryBool),
  include_archive: v.optional(QueryBool),
  archived_only: v.optional(QueryBool),
  exclude_empty: v.optional(QueryBool),
  workspace_id: v.optional(NonEmptyString),
});

export const SessionIdParams = v.object({ session_id: NonEmptyString });

export const ProfileBody = v.object({
  title: v.optional(NonEmptyString),
  metadata: v.optional(Metadata),
  agent_config: v.optional(AgentConfigPatch),
  permission_rules: v.optional(v.array(v.unknown())),
});

export const ForkBody = v.object({
  title: v.optional(NonEmptyString),
  metadata: v.optional(Metadata),
});

export const ChildrenQuery = v.object({
  before_id: v.optional(NonEmptyString),
  after_id: v.optional(NonEmptyString),
  page_size: v.optional(queryInt(1, 100)),
  busy: v.optional(QueryBool),
});

export const SessionPage = v.object({ items: v.array(SessionObject), has_more: v.boolean() });

export const SessionStatus = v.object({
  busy: v.boolean(),
  model: v.optional(v.string()),
  thinking_level: v.string(),
  permission: v.string(),
  plan_mode: v.boolean(),
  dynamic_workflow_mode: v.boolean(),
  context_tokens: v.number(),
  max_context_tokens: v.optional(v.number()),
  context_usage: v.optional(v.number()),
});

export const Warnings = v.object({
  warnings: v.array(v.object({ code: v.string(), message: v.string(), severity: v.picklist(['info', 'warning', 'error']) })),
});

export const RuntimeBinding = v.object({ workspace_id: v.string(), runtime_id: v.string() });
export const RuntimeBody = v.object({ runtime_id: NonEmptyString });

export const CompactBody = v.object({ instruction: v.optional(v.string()) });
export const UndoBody = v.object({
  count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  page_size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
});
export const EmptyBody = v.object({});
