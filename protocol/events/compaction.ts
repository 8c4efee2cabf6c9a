import * as v from 'valibot';
import { Failure, Usage } from './common.ts';
import { defineEvent, type PayloadOfDef } from './define.ts';

/**
 * Context compaction and undo (docs/compaction-undo.md), on the session's stream. They carry `agent_id`
 * (always `main` today) and are what the runtime history, the messages projection, the session index and
 * the usage projection replay: nothing about a compaction or an undo lives only in memory.
 */

const AgentId = v.pipe(v.string(), v.description('`main` (only the main agent is compacted or undone)'));

export const CompactionTrigger = v.picklist(['manual', 'auto']);
export type CompactionTrigger = v.InferOutput<typeof CompactionTrigger>;

const started = defineEvent({
  type: 'compaction.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A compaction started: `manual` (POST :compact) or `auto` (before a step, when the remaining window fell below '
    + 'loop_control.reserved_context_size). The session is busy until compaction.completed or compaction.failed',
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
    tokens_before: v.number(), tokens_after: v.pipe(v.number(), v.description('estimate of the context after compaction')),
    usage: v.pipe(Usage, v.description('tokens of the summary request itself (summed into the session usage)')),
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
