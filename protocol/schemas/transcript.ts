import * as v from 'valibot';
import { AgentId, Id, queryInt } from './common.ts';
import { MessageObject } from './messages.ts';
import { TaskObject } from './tasks.ts';
import {
  AgentRecordB, AttachmentRecordB, InteractionRecordB, PromptRecordB, TaskRecordB, TodoRecordB, TranscriptItem, TranscriptMeta, TranscriptOpRecord,
} from './transcript-records.ts';

// Core "Messages and transcript": record shapes are ours (docs/transcript.md); the spec fixes the containers.

/** Plain agent id: letters, digits, `.`, `_`, `-` (`main`, `agent_…`, `btw_…`). */
export const AgentIdParam = AgentId;

export const TranscriptQuery = v.object({
  agent_id: AgentIdParam,
  before_turn: v.optional(Id),
  after_turn: v.optional(Id),
  page_size: v.optional(queryInt(1, 100)),
});
export const OpsQuery = v.object({ agent_id: AgentIdParam, since_seq: queryInt(0, Number.MAX_SAFE_INTEGER) });
export const UserMessagesQuery = v.object({ agent_id: v.optional(AgentIdParam) });
export const PlanQuery = v.object({ agent_id: AgentIdParam, tool_call_id: v.optional(Id) });

const Usage = v.object({ input_tokens: v.number(), output_tokens: v.number(), cache_read_tokens: v.number(), cache_creation_tokens: v.number() });

export const ToolCallRecord = v.object({
  tool_call_id: v.string(),
  tool_name: v.string(),
  input: v.unknown(),
  result: v.optional(v.object({ is_error: v.boolean(), content: v.string() })),
});

export const StepRecord = v.object({
  step: v.number(),
  state: v.pipe(v.picklist(['running', 'completed', 'cancelled', 'failed']), v.description('failed/cancelled from turn.step.interrupted')),
  messages: v.array(MessageObject),
  tool_calls: v.array(ToolCallRecord),
});

export const TurnRecord = v.object({
  turn_id: v.string(),
  agent_id: v.string(),
  prompt_id: v.optional(v.string()),
  state: v.picklist(['running', 'completed', 'cancelled', 'failed']),
  started_at: v.string(),
  ended_at: v.optional(v.string()),
  reason: v.optional(v.picklist(['completed', 'cancelled', 'failed'])),
  model: v.optional(v.string()),
  usage: v.optional(Usage),
  steps: v.array(StepRecord),
  user_message: v.optional(v.pipe(MessageObject, v.description('the message that opened the turn (the prompt, or a subagent\'s task prompt)'))),
});

export const AttachmentRecord = v.object({
  attachment_id: v.string(),
  kind: v.picklist(['file', 'image']),
  name: v.optional(v.string()),
  media_type: v.optional(v.string()),
  size: v.optional(v.number()),
});

export const InteractionRecord = v.object({
  kind: v.picklist(['approval', 'question']),
  id: v.pipe(v.string(), v.description('approval_id or question_id')),
  tool_call_id: v.string(),
  turn_id: v.optional(v.string()),
  state: v.picklist(['pending', 'approved', 'rejected', 'cancelled', 'answered', 'dismissed']),
  request: v.pipe(v.record(v.string(), v.unknown()), v.description('the requested event\'s payload')),
  resolution: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description('the resolved / answered / dismissed event\'s payload'))),
});

export const TodoRecord = v.object({ id: v.string(), content: v.string(), status: v.picklist(['pending', 'in_progress', 'completed']), activeForm: v.optional(v.string()) });

export const AgentRecord = v.object({
  agent_id: v.string(),
  kind: v.picklist(['main', 'task', 'btw']),
  state: v.picklist(['idle', 'running', 'completed', 'failed']),
  parent_agent_id: v.optional(v.string()),
  parent_tool_call_id: v.optional(v.string()),
  description: v.optional(v.string()),
  subagent_type: v.optional(v.string()),
  model: v.optional(v.string()),
  task_id: v.optional(v.string()),
  created_at: v.optional(v.pipe(v.string(), v.description('when the agent was created (session.created / subagent.spawned)'))),
  disposed_at: v.optional(v.pipe(v.string(), v.description('when a subagent ended (its runtime is gone)'))),
});

export const MetaRecord = v.object({
  turns: v.pipe(v.number(), v.description('turns of the agent (undone ones left out)')),
  usage: Usage,
  model: v.optional(v.pipe(v.string(), v.description('model of the latest turn'))),
  compactions: v.number(),
  last_turn_reason: v.optional(v.picklist(['completed', 'cancelled', 'failed'])),
});

/** GET /transcript: the spec's containers (plus `prompts`) holding the client records of spec/clients.md B. */
export const TranscriptData = v.object({
  agent_id: v.string(),
  items: v.pipe(v.array(TranscriptItem), v.description('whole turns with the markers and taskrefs that follow each, oldest first')),
  has_more: v.pipe(v.boolean(), v.description('older turns exist (no cursor / before_turn) or newer ones (after_turn)')),
  tasks: v.array(TaskRecordB),
  interactions: v.array(InteractionRecordB),
  attachments: v.array(AttachmentRecordB),
  todos: v.array(TodoRecordB),
  prompts: v.pipe(v.array(PromptRecordB), v.description('the agent\'s prompts and their statuses (beyond the spec\'s list; clients need it)')),
  meta: TranscriptMeta,
  agents: v.array(v.pipe(AgentRecordB, v.description('agentId / type / parentAgentId / label plus our agent_id, kind, state, parent_agent_id, ...'))),
  pending_interactions: v.pipe(v.array(v.string()), v.description('interactionId of each pending interaction')),
  seq: v.optional(v.pipe(v.number(), v.description('the agent\'s op-batch watermark (live sessions only): the `transcript_since` to resume from'))),
});

export const OpsData = v.object({
  agent_id: v.string(),
  batches: v.array(v.object({ seq: v.number(), ops: v.array(TranscriptOpRecord) })),
  latest_seq: v.pipe(v.number(), v.description('the agent\'s op-batch watermark')),
  complete: v.pipe(v.boolean(), v.description('false: the bounded op journal (last 2000 batches) does not reach since_seq, or the session is not live; refresh the transcript')),
});

export const UserMessageRecord = v.object({
  turn_id: v.nullable(v.pipe(v.string(), v.description('null while the prompt waits in the queue or was dropped before running'))),
  ordinal: v.pipe(v.number(), v.description('1-based position among the agent\'s user messages')),
  state: v.picklist(['queued', 'running', 'completed', 'failed', 'cancelled']),
  origin: v.picklist(['user', 'skill', 'plugin_command', 'task_notification', 'subagent_prompt', 'cron']),
  prompt: v.string(),
  prompt_id: v.optional(v.string()),
  attachment_ids: v.optional(v.array(v.string())),
  started_at: v.optional(v.string()),
});
export const UserMessagesData = v.object({
  agents: v.array(v.object({ agent_id: v.string(), messages: v.array(UserMessageRecord), attachments: v.array(AttachmentRecord) })),
});

export const PlanRecord = v.object({
  tool_call_id: v.string(),
  turn_id: v.string(),
  source: v.picklist(['interaction', 'display', 'output']),
  plan: v.string(),
  path: v.optional(v.string()),
  options: v.optional(v.array(v.object({ label: v.string(), description: v.optional(v.string()) }))),
  review: v.optional(v.object({
    state: v.picklist(['pending', 'approved', 'rejected', 'cancelled']),
    selected_option: v.optional(v.string()),
    feedback: v.optional(v.string()),
  })),
});
export const PlanData = v.object({ agent_id: v.string(), plans: v.array(PlanRecord) });

export type TurnRec = v.InferOutput<typeof TurnRecord>;
export type StepRec = v.InferOutput<typeof StepRecord>;
export type AttachmentRec = v.InferOutput<typeof AttachmentRecord>;
export type InteractionRec = v.InferOutput<typeof InteractionRecord>;
export type TodoRec = v.InferOutput<typeof TodoRecord>;
export type AgentRec = v.InferOutput<typeof AgentRecord>;
export type UserMessageRec = v.InferOutput<typeof UserMessageRecord>;
export type PlanRec = v.InferOutput<typeof PlanRecord>;
export type TaskRec = v.InferOutput<typeof TaskObject>;
