import * as v from 'valibot';
import { ContentPart, MessageObject } from '../schemas/messages.ts';
import { AgentId, Failure, Usage } from './common.ts';
import { defineEvent, type PayloadOfDef } from './define.ts';

/**
 * The agent loop on a session's stream: prompts, turns, their steps (model requests) and the messages
 * they add. Every payload carries `agent_id` (`main` for the main agent) so `agent_filter` works.
 */

/** Core "Message object" content parts. */
export type ContentPart = v.InferOutput<typeof ContentPart>;
/** Core "Message object". */
export type Message = v.InferOutput<typeof MessageObject>;

const Turn = { agent_id: AgentId, turn_id: v.string() };
/** A step of the turn (1-based; the turn's model requests in order). */
const Step = v.pipe(v.number(), v.integer());

/** How the step's model request went, measured by the engine (ms; each known value only). */
const LlmTiming = v.pipe(v.object({
  request_build_ms: v.optional(v.pipe(v.number(), v.description('building the request (history, tools) before it went out'))),
  first_token_latency_ms: v.optional(v.pipe(v.number(), v.description('request sent to the first streamed part'))),
  stream_duration_ms: v.optional(v.pipe(v.number(), v.description('first streamed part to the end of the stream'))),
  client_consume_ms: v.optional(v.pipe(v.number(), v.description('time the engine spent folding the streamed parts'))),
}), v.description('timings of the step\'s last attempt (transcript step `llmTiming`)'));

/** Step timings as `turn.step.completed` journals them (ms). */
export type LlmTiming = v.InferOutput<typeof LlmTiming>;

const promptAccepted = defineEvent({
  type: 'prompt.accepted', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A prompt was accepted (queued, or about to run)',
  payload: v.object({
    agent_id: AgentId, prompt_id: v.string(), user_message_id: v.string(), content: v.array(ContentPart), created_at: v.string(),
    overrides: v.pipe(v.object({
      model: v.optional(v.string()), thinking: v.optional(v.string()), permission_mode: v.optional(v.string()),
      disabled_tools: v.optional(v.array(v.string())), profile: v.optional(v.string()),
    }), v.description('applied overrides, as resolved at acceptance')),
    metadata: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description('the POST /prompts `metadata`, as given (transcript prompt `clientMetadata`)'))),
    source: v.optional(v.pipe(v.picklist(['user', 'skill', 'goal', 'task']), v.description(
      'who queued it: `user` (POST /prompts; the default), `skill` (POST skills/{name}:activate), `goal` (a goal continuation), '
      + '`task` (a follow-up turn: background tasks ended while the agent was idle; the content is their notes)',
    ))),
    task_ids: v.optional(v.pipe(v.array(v.string()), v.description('source `task`: the tasks whose notes the prompt delivers, in order'))),
  }),
  companions: (p) => [{
    type: 'prompt.submitted',
    payload: { agent_id: p.agent_id, prompt_id: p.prompt_id, user_message_id: p.user_message_id, status: 'queued', content: p.content, created_at: p.created_at },
  }],
});

const promptSteered = defineEvent({
  type: 'prompt.steered', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'Queued prompts were folded into the active turn',
  payload: v.object({ ...Turn, prompt_ids: v.array(v.string()) }),
});

const promptAborted = defineEvent({
  type: 'prompt.aborted', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A queued or running prompt was aborted',
  payload: v.object({ agent_id: AgentId, prompt_id: v.string(), reason: v.picklist(['user', 'interrupted']) }),
  extend: { entries: { abortedAt: v.pipe(v.string(), v.description('when it was aborted (ISO 8601)')) }, build: (_p, w) => ({ abortedAt: new Date(w.time).toISOString() }) },
});

// The prompt's life under the reference server's names (spec/clients.md F), journaled beside the facts they mirror:
// prompt.submitted with prompt.accepted, prompt.started with turn.started, prompt.completed with turn.ended.
const promptSubmitted = defineEvent({
  type: 'prompt.submitted', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'prompt.accepted as the reference server names it: promptId, userMessageId, status, content, createdAt',
  payload: v.object({
    agent_id: AgentId, prompt_id: v.string(), user_message_id: v.string(),
    status: v.pipe(v.literal('queued'), v.description('queued when journaled; prompt.started follows when its turn starts')),
    content: v.array(ContentPart), created_at: v.string(),
  }),
  aliases: { created_at: 'createdAt' },
});

const promptStarted = defineEvent({
  type: 'prompt.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A prompt\'s turn started (journaled with turn.started)',
  payload: v.object({ ...Turn, prompt_id: v.string() }),
  turn: 'turn',
});

const promptCompleted = defineEvent({
  type: 'prompt.completed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A prompt\'s turn ended (journaled with turn.ended; reason is the turn\'s)',
  payload: v.object({ ...Turn, prompt_id: v.string(), reason: v.picklist(['completed', 'cancelled', 'failed']), finished_at: v.string() }),
  turn: 'turn',
  aliases: { finished_at: 'finishedAt' },
});

const messageCreated = defineEvent({
  type: 'message.created', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A message entered the history (GET /messages serves the main agent\'s); metadata.interrupted marks the partial output of a '
    + 'cancelled, failed or (with metadata.retried) retried attempt',
  payload: v.object({ agent_id: AgentId, turn_id: v.optional(v.string()), message: MessageObject }),
});

const turnStarted = defineEvent({
  type: 'turn.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  summary: 'A turn started (snapshot in_flight_turn until turn.ended)',
  payload: v.object({
    ...Turn, prompt_id: v.string(), prompt_ids: v.pipe(v.array(v.string()), v.description('prompts steered in at start (besides prompt_id)')),
    model: v.string(), started_at: v.string(),
    // The agent's effective settings as the turn starts (transcript meta.agent / meta.modes); absent in older journals.
    permission_mode: v.optional(v.pipe(v.picklist(['manual', 'yolo', 'auto']), v.description('the effective permission mode'))),
    plan_mode: v.optional(v.pipe(v.boolean(), v.description('plan mode on'))),
    swarm_mode: v.optional(v.pipe(v.boolean(), v.description('dynamic workflow mode on'))),
    thinking: v.optional(v.pipe(v.string(), v.description('the thinking effort (`off`, `on` or an effort name)'))),
    max_context_tokens: v.optional(v.pipe(v.number(), v.description('the model\'s context window, when configured'))),
    prompt: v.optional(v.pipe(v.string(), v.description('the text of the prompt the turn answers (its text parts joined); absent in older journals'))),
  }),
  turn: 'turn',
  extend: {
    entries: {
      origin: v.pipe(v.object({ kind: v.picklist(['user', 'other']) }), v.description('who started the turn (spec/clients.md B2): `user`, or `other` (a goal continuation, a subagent\'s task)')),
      prompt: v.pipe(v.string(), v.description('the prompt\'s text (empty when an older journal did not record it)')),
    },
    build: (p, w) => ({ origin: { kind: w.place?.origin === 'other' ? 'other' : 'user' }, prompt: typeof p.prompt === 'string' ? p.prompt : '' }),
  },
  companions: (p) => [{ type: 'prompt.started', payload: { agent_id: p.agent_id, prompt_id: p.prompt_id, turn_id: p.turn_id } }],
});

const stepStarted = defineEvent({
  type: 'turn.step.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A model request of the turn started',
  payload: v.object({ ...Turn, step: Step }),
  turn: 'step',
});

const stepCompleted = defineEvent({
  type: 'turn.step.completed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A model request completed; usage is summed into the session usage',
  payload: v.object({
    ...Turn, step: Step, finish_reason: v.string(), usage: Usage,
    context_tokens: v.pipe(v.number(), v.description('context size measured after this step')), message_id: v.optional(v.string()),
    llm_timing: v.optional(LlmTiming),
  }),
  turn: 'step',
  extend: {
    entries: {
      usage: v.pipe(v.object({
        ...Usage.entries, inputOther: v.number(), output: v.number(), inputCacheRead: v.number(), inputCacheCreation: v.number(),
      }), v.description('the tokens of the step, under both names (clients add up inputOther, output, inputCacheRead, inputCacheCreation)')),
      finishReason: v.string(),
      llmFirstTokenLatencyMs: v.optional(v.number()), llmStreamDurationMs: v.optional(v.number()),
      llmRequestBuildMs: v.optional(v.number()), llmClientConsumeMs: v.optional(v.number()),
    },
    build: (p) => {
      const u = p.usage as Usage;
      const t = (p.llm_timing ?? {}) as LlmTiming;
      const timing: Record<string, number> = {};
      if (t.first_token_latency_ms !== undefined) timing.llmFirstTokenLatencyMs = t.first_token_latency_ms;
      if (t.stream_duration_ms !== undefined) timing.llmStreamDurationMs = t.stream_duration_ms;
      if (t.request_build_ms !== undefined) timing.llmRequestBuildMs = t.request_build_ms;
      if (t.client_consume_ms !== undefined) timing.llmClientConsumeMs = t.client_consume_ms;
      return {
        usage: { ...u, inputOther: u.input_tokens, output: u.output_tokens, inputCacheRead: u.cache_read_tokens, inputCacheCreation: u.cache_creation_tokens },
        finishReason: p.finish_reason, ...timing,
      };
    },
  },
});

const stepInterrupted = defineEvent({
  type: 'turn.step.interrupted', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A step stopped before completing (abort or failure)',
  payload: v.object({ ...Turn, step: Step, reason: v.picklist(['cancelled', 'failed']), error: v.optional(Failure) }),
  turn: 'step',
});

const stepRetrying = defineEvent({
  type: 'turn.step.retrying', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A transient failure (connection error, idle timeout, 429, 5xx): the step is retried after delay_ms. Text or thinking the failed '
    + 'attempt had streamed was saved just before, as an assistant message.created with metadata {interrupted: true, retried: true} '
    + '(left out of the model context), so the turn\'s delta offsets keep growing and match the journaled messages',
  payload: v.object({
    ...Turn, step: Step, attempt: v.pipe(v.number(), v.description('the attempt that failed (1-based)')),
    next_attempt: v.pipe(v.number(), v.description('the attempt about to run after delay_ms')), delay_ms: v.number(), error: Failure,
    max_attempts: v.optional(v.pipe(v.number(), v.description('attempts allowed per step (loop_control)'))),
  }),
  turn: 'step',
});

const turnEnded = defineEvent({
  type: 'turn.ended', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  summary: 'A turn ended (also after a daemon restart interrupted it: failed or cancelled)',
  payload: v.object({
    ...Turn, prompt_id: v.string(), reason: v.picklist(['completed', 'cancelled', 'failed']), error: v.optional(Failure), usage: Usage, steps: v.number(),
    ended_at: v.string(),
  }),
  turn: 'turn',
  extend: {
    entries: { durationMs: v.optional(v.pipe(v.number(), v.description('turn.started to turn.ended (ms)'))) },
    build: (p, w) => {
      const ms = Date.parse(p.ended_at as string) - (w.place?.startedAt ?? NaN);
      return Number.isFinite(ms) ? { durationMs: Math.max(0, ms) } : {};
    },
  },
  companions: (p) => [{
    type: 'prompt.completed', payload: { agent_id: p.agent_id, prompt_id: p.prompt_id, turn_id: p.turn_id, reason: p.reason, finished_at: p.ended_at },
  }],
});

const systemPromptRecorded = defineEvent({
  type: 'system_prompt.recorded', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The system prompt an agent runs with, journaled with its first turn; a resumed session keeps it (identity edits apply to new sessions only)',
  payload: v.object({ agent_id: v.string(), text: v.string(), identity: v.object({ name: v.string(), slug: v.string() }) }),
});

export const TURN_EVENTS = [
  promptAccepted, promptSteered, promptAborted, messageCreated, turnStarted, stepStarted, stepCompleted, stepInterrupted, stepRetrying, turnEnded,
  systemPromptRecorded, promptSubmitted, promptStarted, promptCompleted,
] as const;

export type PromptAcceptedPayload = PayloadOfDef<typeof promptAccepted>;
export type PromptSteeredPayload = PayloadOfDef<typeof promptSteered>;
export type PromptAbortedPayload = PayloadOfDef<typeof promptAborted>;
export type MessageCreatedPayload = PayloadOfDef<typeof messageCreated>;
export type TurnStartedPayload = PayloadOfDef<typeof turnStarted>;
export type StepStartedPayload = PayloadOfDef<typeof stepStarted>;
export type StepCompletedPayload = PayloadOfDef<typeof stepCompleted>;
export type StepInterruptedPayload = PayloadOfDef<typeof stepInterrupted>;
export type TurnEndedPayload = PayloadOfDef<typeof turnEnded>;
export type SystemPromptRecord = PayloadOfDef<typeof systemPromptRecorded>;
export type TurnReason = TurnEndedPayload['reason'];
