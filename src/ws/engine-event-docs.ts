import * as v from 'valibot';
import { EngineEvents } from '../engine/events.ts';
import { ContentPart, MessageObject } from '../http/schemas/messages.ts';
import { ApprovalEvents } from '../permissions/types.ts';
import { QuestionEvents } from '../questions/types.ts';
import { AnswerSchema, QuestionItemSchema } from '../http/schemas/questions.ts';
import { ToolEvents } from '../tools/events.ts';
import { TASK_SESSION_EVENT_DOCS, TASK_VOLATILE_DOCS } from '../tasks/event-docs.ts';
import { SKILL_SESSION_EVENT_DOCS } from '../skills/event-docs.ts';
import { TODO_SESSION_EVENT_DOCS } from '../tools/todo-events.ts';
import { SUBAGENT_EVENT_DOCS } from '../agents/events.ts';
import { SYSTEM_PROMPT_EVENT_DOCS } from '../engine/system-prompt.ts';
import { COMPACTION_EVENT_DOCS } from '../engine/compaction-event-docs.ts';
import type { EventDoc } from './event-payloads.ts';

/** Payload schemas of the agent engine's events (src/engine/events.ts), for /asyncapi.json. */

const AgentId = v.pipe(v.string(), v.description('`main` for the main agent (what agent_filter matches)'));
const Usage = v.object({ input_tokens: v.number(), output_tokens: v.number(), cache_read_tokens: v.number(), cache_creation_tokens: v.number() });
const Failure = v.object({ kind: v.string(), message: v.string(), status: v.optional(v.number()) });
const Turn = { agent_id: AgentId, turn_id: v.string() };

export const ENGINE_SESSION_EVENT_DOCS: EventDoc[] = [
  {
    type: EngineEvents.promptAccepted, summary: 'A prompt was accepted (queued, or about to run)',
    payload: v.object({
      agent_id: AgentId, prompt_id: v.string(), user_message_id: v.string(), content: v.array(ContentPart), created_at: v.string(),
      overrides: v.object({
        model: v.optional(v.string()), thinking: v.optional(v.string()), permission_mode: v.optional(v.string()),
        disabled_tools: v.optional(v.array(v.string())), profile: v.optional(v.string()),
      }),
    }),
  },
  { type: EngineEvents.promptSteered, summary: 'Queued prompts were folded into the active turn', payload: v.object({ ...Turn, prompt_ids: v.array(v.string()) }) },
  {
    type: EngineEvents.promptAborted, summary: 'A queued or running prompt was aborted',
    payload: v.object({ agent_id: AgentId, prompt_id: v.string(), reason: v.picklist(['user', 'interrupted']) }),
  },
  {
    type: EngineEvents.messageCreated,
    summary: 'A message entered the history (GET /messages serves the main agent\'s); metadata.interrupted marks the partial output of a '
      + 'cancelled, failed or (with metadata.retried) retried attempt',
    payload: v.object({ agent_id: AgentId, turn_id: v.optional(v.string()), message: MessageObject }),
  },
  {
    type: EngineEvents.turnStarted, summary: 'A turn started (snapshot in_flight_turn until turn.ended)',
    payload: v.object({ ...Turn, prompt_id: v.string(), prompt_ids: v.array(v.string()), model: v.string(), started_at: v.string() }),
  },
  { type: EngineEvents.stepStarted, summary: 'A model request of the turn started', payload: v.object({ ...Turn, step: v.number() }) },
  {
    type: EngineEvents.stepCompleted, summary: 'A model request completed; usage is summed into the session usage',
    payload: v.object({
      ...Turn, step: v.number(), finish_reason: v.string(), usage: Usage,
      context_tokens: v.pipe(v.number(), v.description('context size measured after this step')), message_id: v.optional(v.string()),
    }),
  },
  {
    type: EngineEvents.stepInterrupted, summary: 'A step stopped before completing (abort or failure)',
    payload: v.object({ ...Turn, step: v.number(), reason: v.picklist(['cancelled', 'failed']), error: v.optional(Failure) }),
  },
  {
    type: EngineEvents.stepRetrying,
    summary: 'A transient failure (connection error, idle timeout, 429, 5xx): the step is retried after delay_ms. Text or thinking the failed '
      + 'attempt had streamed was saved just before, as an assistant message.created with metadata {interrupted: true, retried: true} '
      + '(left out of the model context), so the turn\'s delta offsets keep growing and match the journaled messages',
    payload: v.object({ ...Turn, step: v.number(), attempt: v.number(), next_attempt: v.number(), delay_ms: v.number(), error: Failure }),
  },
  {
    type: EngineEvents.turnEnded, summary: 'A turn ended (also after a daemon restart interrupted it: failed or cancelled)',
    payload: v.object({
      ...Turn, prompt_id: v.string(), reason: v.picklist(['completed', 'cancelled', 'failed']), error: v.optional(Failure), usage: Usage, steps: v.number(), ended_at: v.string(),
    }),
  },
  { type: EngineEvents.titleGenerated, summary: 'A title was generated (a custom title wins)', payload: v.object({ title: v.string(), source: v.string(), model: v.string() }) },
  {
    type: ToolEvents.callStarted, summary: 'A tool call is about to run (before the [tools] re-check, permission gate and input validation)',
    payload: v.object({ agent_id: AgentId, turn_id: v.optional(v.string()), tool_call_id: v.string(), tool_name: v.string(), input: v.unknown() }),
  },
  {
    type: ToolEvents.result, summary: 'A tool call finished; content is what the model gets, cut to 100000 characters here',
    payload: v.object({ agent_id: AgentId, tool_call_id: v.string(), tool_name: v.string(), is_error: v.boolean(), content: v.string(), duration_ms: v.number() }),
  },
  {
    type: ApprovalEvents.requested, summary: 'A tool call waits for the user\'s approval (Core "Approval item"; expires 24 h after created_at)',
    payload: v.object({
      approval_id: v.string(), session_id: v.string(), agent_id: AgentId, turn_id: v.optional(v.string()), tool_call_id: v.string(), tool_name: v.string(),
      action: v.string(), tool_input_display: v.string(), created_at: v.string(), expires_at: v.string(),
      options: v.optional(v.pipe(
        v.array(v.object({ label: v.string(), description: v.optional(v.string()) })),
        v.description('choices of a review (ExitPlanMode: Approve / Approve and auto-accept edits / Keep planning); answer with selected_label'),
      )),
      plan: v.optional(v.pipe(v.string(), v.description('the plan under review (markdown), on ExitPlanMode approvals'))),
    }),
  },
  {
    type: ApprovalEvents.resolved, summary: 'An approval was answered, or cancelled by the server (reason timed_out / turn_aborted / daemon_restarted)',
    payload: v.object({
      approval_id: v.string(), agent_id: AgentId, tool_call_id: v.string(), decision: v.picklist(['approved', 'rejected', 'cancelled']),
      reason: v.optional(v.string()), scope: v.optional(v.literal('session')), feedback: v.optional(v.string()), selected_label: v.optional(v.string()),
      remember: v.optional(v.object({ tool_name: v.string(), subject: v.optional(v.string()) })), resolved_at: v.string(),
    }),
  },
  {
    type: QuestionEvents.requested, summary: 'An AskUserQuestion call waits for the user\'s answers (Core "Question item"; times out after 24 h by default)',
    payload: QuestionItemSchema,
  },
  {
    type: QuestionEvents.answered, summary: 'A question was answered (answers keyed by question item id)',
    payload: v.object({
      question_id: v.string(), agent_id: AgentId, tool_call_id: v.string(), answers: v.record(v.string(), AnswerSchema),
      method: v.optional(v.string()), note: v.optional(v.string()), answered_at: v.string(),
    }),
  },
  {
    type: QuestionEvents.dismissed, summary: 'A question was dismissed by the user, or by the server (reason timed_out / turn_aborted / daemon_restarted)',
    payload: v.object({
      question_id: v.string(), agent_id: AgentId, tool_call_id: v.string(),
      reason: v.picklist(['user', 'timed_out', 'turn_aborted', 'daemon_restarted']), dismissed_at: v.string(),
    }),
  },
  ...TASK_SESSION_EVENT_DOCS, ...SKILL_SESSION_EVENT_DOCS, ...TODO_SESSION_EVENT_DOCS, ...SUBAGENT_EVENT_DOCS, ...SYSTEM_PROMPT_EVENT_DOCS, ...COMPACTION_EVENT_DOCS,
];

const Work = { session_id: v.string(), workspace_id: v.string(), busy: v.boolean(), main_turn_active: v.boolean() };

export const ENGINE_GLOBAL_EVENT_DOCS: EventDoc[] = [
  { type: EngineEvents.workChanged, summary: 'A session\'s busy / main_turn_active changed', payload: v.object(Work) },
  {
    type: EngineEvents.statusChanged, summary: 'A session\'s busy / main_turn_active / pending_interaction changed',
    payload: v.object({ ...Work, pending_interaction: v.picklist(['none', 'approval', 'question']) }),
  },
];

/** Volatile frames of the engine (`offset` also on the frame). */
export const ENGINE_VOLATILE_DOCS: EventDoc[] = [EngineEvents.assistantDelta, EngineEvents.thinkingDelta].map((type): EventDoc => ({
  type,
  summary: `Streamed ${type === EngineEvents.assistantDelta ? 'answer' : 'thinking'} text; offset = where text starts within the turn's text of that kind`,
  payload: v.object({ ...Turn, step: v.number(), text: v.string(), offset: v.number() }),
})).concat([{
  type: ToolEvents.progress, summary: 'Progress of a running tool call (tool-specific fields besides the ids)',
  payload: v.looseObject({ agent_id: AgentId, tool_call_id: v.string(), tool_name: v.string() }),
}, {
  type: ToolEvents.callDelta,
  summary: 'Streamed arguments (JSON text) of a tool call the model is writing; offset = where delta starts within that call\'s arguments. tool.call.started carries the parsed input once the call is complete',
  payload: v.object({ ...Turn, step: v.number(), tool_call_id: v.string(), tool_name: v.string(), delta: v.string(), offset: v.number() }),
}], TASK_VOLATILE_DOCS);
