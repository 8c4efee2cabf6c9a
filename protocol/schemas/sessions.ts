import * as v from 'valibot';
import { FreeJson, FreeObject, Id, LIMITS, Metadata, PathString, PermissionMode, QueryBool, Text, Title, Unreadable, boundedArray, boundedJson, intIn, objectOnly, queryInt } from './common.ts';

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
export const AgentConfigPatch = objectOnly(v.object({
  model: v.optional(v.pipe(v.string(), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`))),
  thinking: v.optional(v.pipe(v.string(), v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`))),
  permission_mode: v.optional(PermissionMode),
  plan_mode: v.optional(v.boolean()),
  dynamic_workflow_mode: v.optional(v.boolean()),
  goal_objective: v.optional(v.pipe(Text, v.minLength(1, 'must not be empty'))),
  goal_control: v.optional(v.picklist(['pause', 'resume', 'cancel'])),
  system_prompt: v.optional(Text),
  tools: v.optional(boundedArray(Id)),
  mcp_servers: v.optional(FreeJson()),
}));

export const SessionCreateBody = v.object({
  workspace_id: v.optional(Id),
  metadata: v.optional(boundedJson(objectOnly(v.objectWithRest({ cwd: v.optional(PathString) }, v.unknown())))),
  title: v.optional(Title),
  agent_config: v.optional(FreeObject),
});

export const SessionListQuery = v.object({
  before_id: v.optional(Id),
  after_id: v.optional(Id),
  page_size: v.optional(queryInt(1, 100)),
  busy: v.optional(QueryBool),
  include_archive: v.optional(QueryBool),
  archived_only: v.optional(QueryBool),
  exclude_empty: v.optional(QueryBool),
  workspace_id: v.optional(Id),
});

export const SessionIdParams = v.object({ session_id: Id });

export const ProfileBody = v.object({
  title: v.optional(Title),
  metadata: v.optional(Metadata),
  agent_config: v.optional(AgentConfigPatch),
  permission_rules: v.optional(boundedJson(boundedArray(v.unknown()))),
});

export const ForkBody = v.object({
  title: v.optional(Title),
  metadata: v.optional(Metadata),
});

export const ChildrenQuery = v.object({
  before_id: v.optional(Id),
  after_id: v.optional(Id),
  page_size: v.optional(queryInt(1, 100)),
  busy: v.optional(QueryBool),
});

export const SessionPage = v.object({ items: v.array(SessionObject), has_more: v.boolean(), unreadable: v.optional(Unreadable) });

export const SessionStatus = v.object({
  busy: v.boolean(),
  model: v.optional(v.string()),
  thinking_level: v.string(),
  permission: v.string(),
  plan_mode: v.boolean(),
  dynamic_workflow_mode: v.boolean(),
  swarm_mode: v.pipe(v.boolean(), v.description('the same as dynamic_workflow_mode, named as web clients read it')),
  tower_mode: v.pipe(v.boolean(), v.description('web clients read it; true only when agent_config.tower_mode is true')),
  context_tokens: v.number(),
  max_context_tokens: v.optional(v.number()),
  context_usage: v.optional(v.number()),
});

export const Warnings = v.object({
  warnings: v.array(v.object({ code: v.string(), message: v.string(), severity: v.picklist(['info', 'warning', 'error']) })),
});

export const RuntimeBinding = v.object({ workspace_id: v.string(), runtime_id: v.string() });
export const RuntimeBody = v.object({ runtime_id: Id });

export const CompactBody = v.object({ instruction: v.optional(Text) });
export const UndoBody = v.object({
  count: v.optional(intIn(1, Number.MAX_SAFE_INTEGER)),
  page_size: v.optional(intIn(1, 100)),
});
export const EmptyBody = v.object({});
