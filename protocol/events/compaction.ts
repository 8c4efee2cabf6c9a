import * as v from 'valibot';
import { Failure, Usage } from './common.ts';
import { defineEvent, type PayloadOfDef } from './define.ts';

/**
 * Context compaction and undo (docs/compaction-undo.md), on the session's stream. They carry `agent_id`
 * and are what the runtime history, the messages projection, the session index and the usage projection
 * replay: nothing about a compaction or an undo lives only in memory.
 */

const AgentId = v.pipe(v.string(), v.description('the agent whose context changed: `main`, a subagent or a `:btw` agent (compactions); `main` (undo)'));

const Truncation = v.object({
  message_id: v.string(), tool_use_id: v.string(),
  kept_chars: v.pipe(v.number(), v.description('characters kept (head and tail, with a note of the cut between them)')),
});

export const CompactionTrigger = v.picklist(['manual', 'auto']);
export type CompactionTrigger = v.InferOutput<typeof CompactionTrigger>;

const started = defineEvent({
  type: 'compaction.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A compaction started: `manual` (POST :compact) or `auto` (before a step that would leave less than the reserve of the '
    + 'model\'s window free, or after the provider refused a request as too long). The session is busy until compaction.completed or '
    + 'compaction.failed',
  payload: v.object({ compaction_id: v.string(), agent_id: AgentId, trigger: CompactionTrigger, instruction: v.optional(v.string()) }),
});

const completed = defineEvent({
  type: 'compaction.completed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The model summarized the context: the first replaced_messages context messages are replaced by the summary, a user-role '
    + 'message.created with metadata.compaction that follows this event. The model context is now that summary plus what came after; '
    + 'GET /messages still lists the older messages',
  payload: v.object({
    compaction_id: v.string(), agent_id: AgentId, summary_message_id: v.string(),
    replaced_messages: v.pipe(v.number(), v.description('how many leading context messages the summary replaces (messages after them stay)')),
    tokens_before: v.pipe(v.number(), v.description('the context (system prompt, tools and messages) when the compaction started')),
    tokens_after: v.pipe(v.number(), v.description('estimate of the same after compaction')),
    usage: v.pipe(Usage, v.description('tokens of the summary requests themselves (summed into the session usage)')),
    summary_requests: v.optional(v.pipe(v.number(), v.description('model requests the summary took: 1, or the parts of a history too long '
      + 'for one request plus their merges'))),
    kept_messages: v.optional(v.pipe(v.number(), v.description('context messages kept verbatim after the summary'))),
    kept_chars: v.optional(v.pipe(v.number(), v.description('characters of the kept messages (the context estimate\'s basis besides the summary)'))),
    truncated_results: v.optional(v.pipe(v.array(Truncation), v.description('large tool results of the kept messages cut to fit; replay '
      + 'cuts them the same way'))),
  }),
  // What web clients read (spec/clients.md A6); the summary text is the user-role message.created that follows.
  extend: {
    entries: { result: v.object({ tokensBefore: v.number(), tokensAfter: v.number(), summaryMessageId: v.string() }) },
    build: (p) => ({ result: { tokensBefore: p.tokens_before, tokensAfter: p.tokens_after, summaryMessageId: p.summary_message_id } }),
  },
});

const failed = defineEvent({
  type: 'compaction.failed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A compaction gave up (after loop_control.compaction_max_attempts attempts on transient errors, at once on others); the context is unchanged',
  payload: v.object({ compaction_id: v.string(), agent_id: AgentId, error: Failure, attempts: v.number() }),
});

const undone = defineEvent({
  type: 'session.undone', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'POST :undo removed the last `count` turns (each user prompt and everything after it): message_ids leave the model context '
    + 'and GET /messages; last_prompt is the session\'s reconciled last_prompt',
  payload: v.object({
    agent_id: AgentId, count: v.number(), message_ids: v.pipe(v.array(v.string()), v.description('every removed message, oldest first')),
    last_prompt: v.nullable(v.string()),
    context_chars: v.pipe(v.number(), v.description('characters of the remaining context (token estimate basis)')),
  }),
});

export const COMPACTION_EVENTS = [started, completed, failed, undone] as const;

export type CompactionStartedPayload = PayloadOfDef<typeof started>;
export type CompactionCompletedPayload = PayloadOfDef<typeof completed>;
export type CompactionFailedPayload = PayloadOfDef<typeof failed>;
export type SessionUndonePayload = PayloadOfDef<typeof undone>;
