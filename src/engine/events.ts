/**
 * Events of the agent engine (issue 3). Durable ones go on the session's
 * stream (or the global stream where noted); volatile ones go through
 * `app.publishVolatile` and are never journaled. Payload shapes are ours and
 * documented in /asyncapi.json. Every payload carries `agent_id` (`main` for
 * the main agent) so `agent_filter` works.
 */
export const EngineEvents = {
  /** A prompt was accepted (queued, or about to run). */
  promptAccepted: 'prompt.accepted',
  /** Queued prompts were folded into the active turn. */
  promptSteered: 'prompt.steered',
  /** A queued or running prompt was aborted. */
  promptAborted: 'prompt.aborted',
  /** A message entered the session history (user, assistant, tool, system). */
  messageCreated: 'message.created',
  turnStarted: 'turn.started',
  turnEnded: 'turn.ended',
  stepStarted: 'turn.step.started',
  stepCompleted: 'turn.step.completed',
  stepInterrupted: 'turn.step.interrupted',
  stepRetrying: 'turn.step.retrying',
  /** Volatile: cumulative `offset` of text within the turn. */
  assistantDelta: 'assistant.delta',
  thinkingDelta: 'thinking.delta',
  /** Session title generated (not a custom one). Also broadcast as session.meta.updated. */
  titleGenerated: 'session.title_generated',
  /** Global stream: busy / main_turn_active changed. */
  workChanged: 'event.session.work_changed',
  /** Global stream: busy / main_turn_active / pending_interaction changed. */
  statusChanged: 'event.session.status_changed',
} as const;

export type TurnReason = 'completed' | 'cancelled' | 'failed';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

/** Core "Message object" content parts. */
export type ContentPart =
  | { type: 'text'; text: string }
  /** `meta`: opaque provider data (signatures) replayed to the model on later requests. */
  | { type: 'thinking'; thinking: string; signature?: string; meta?: Record<string, Record<string, unknown>> }
  | { type: 'tool_use'; id: string; name: string; input: unknown; meta?: Record<string, Record<string, unknown>> }
  /** `name`: the tool's name, which some protocols need beside the id. */
  | { type: 'tool_result'; tool_use_id: string; content: unknown; is_error?: boolean; name?: string }
  | { type: 'image' | 'video'; source: unknown }
  | { type: 'file'; file_id: string; name: string; media_type: string; size: number };

/** Core "Message object". */
export interface Message {
  id: string;
  session_id: string;
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: ContentPart[];
  created_at: string;
  prompt_id?: string;
  parent_message_id?: string;
  metadata?: Record<string, unknown>;
}

export interface PromptAcceptedPayload {
  agent_id: string;
  prompt_id: string;
  user_message_id: string;
  content: ContentPart[];
  created_at: string;
  /** Applied overrides, as resolved at acceptance. */
  overrides: { model?: string; thinking?: string; permission_mode?: string; disabled_tools?: string[]; profile?: string };
}

export interface MessageCreatedPayload {
  agent_id: string;
  turn_id?: string;
  message: Message;
}

export interface TurnStartedPayload {
  agent_id: string;
  turn_id: string;
  prompt_id: string;
  /** Prompts steered in at start (besides prompt_id). */
  prompt_ids: string[];
  model: string;
  started_at: string;
}

export interface StepStartedPayload {
  agent_id: string;
  turn_id: string;
  step: number;
}

export interface StepRetryingPayload {
  agent_id: string;
  turn_id: string;
  step: number;
  /** The attempt that failed (1-based) and the one about to run after `delay_ms`. */
  attempt: number;
  next_attempt: number;
  delay_ms: number;
  error: { kind: string; message: string; status?: number };
}

export interface StepInterruptedPayload {
  agent_id: string;
  turn_id: string;
  step: number;
  reason: 'cancelled' | 'failed';
  error?: { kind: string; message: string; status?: number };
}

/** Volatile `assistant.delta` / `thinking.delta`: `offset` is where `text` starts within the turn's text of that kind. */
export interface DeltaPayload {
  agent_id: string;
  turn_id: string;
  step: number;
  text: string;
  offset: number;
}

export interface PromptSteeredPayload {
  agent_id: string;
  turn_id: string;
  prompt_ids: string[];
}

export interface PromptAbortedPayload {
  agent_id: string;
  prompt_id: string;
  reason: 'user' | 'interrupted';
}

export interface StepCompletedPayload {
  agent_id: string;
  turn_id: string;
  step: number;
  finish_reason: string;
  usage: Usage;
  /** Context size after this step, per the token_counting strategy. */
  context_tokens: number;
  message_id?: string;
}

export interface TurnEndedPayload {
  agent_id: string;
  turn_id: string;
  prompt_id: string;
  reason: TurnReason;
  /** Failure detail when reason is failed: {kind, message, status?}. */
  error?: { kind: string; message: string; status?: number };
  usage: Usage;
  steps: number;
  ended_at: string;
}

export interface WorkChangedPayload {
  session_id: string;
  workspace_id: string;
  busy: boolean;
  main_turn_active: boolean;
}

export interface StatusChangedPayload extends WorkChangedPayload {
  pending_interaction: 'none' | 'approval' | 'question';
}
