import * as v from 'valibot';
import type { EventDoc } from '../ws/event-payloads.ts';
import { CompactionEvents } from './compaction-events.ts';

/** Journaled compaction and undo events, for /asyncapi.json (docs/compaction-undo.md). */

const AgentId = v.pipe(v.string(), v.description('`main` (only the main agent is compacted or undone)'));
const Failure = v.object({ kind: v.string(), message: v.string(), status: v.optional(v.number()) });
const Usage = v.object({ input_tokens: v.number(), output_tokens: v.number(), cache_read_tokens: v.number(), cache_creation_tokens: v.number() });

export const COMPACTION_EVENT_DOCS: EventDoc[] = [
  {
    type: CompactionEvents.started,
    summary: 'A compaction started: `manual` (POST :compact) or `auto` (before a step, when the remaining window fell below '
      + 'loop_control.reserved_context_size). The session is busy until compaction.completed or compaction.failed',
    payload: v.object({ compaction_id: v.string(), agent_id: AgentId, trigger: v.picklist(['manual', 'auto']), instruction: v.optional(v.string()) }),
  },
  {
    type: CompactionEvents.completed,
    summary: 'The model summarized the context: the first replaced_messages context messages are replaced by the summary, a user-role '
      + 'message.created with metadata.compaction that follows this event. The model context is now that summary plus what came after; '
      + 'GET /messages still lists the older messages',
    payload: v.object({
      compaction_id: v.string(), agent_id: AgentId, summary_message_id: v.string(), replaced_messages: v.number(),
      tokens_before: v.number(), tokens_after: v.pipe(v.number(), v.description('estimate of the context after compaction')), usage: Usage,
    }),
  },
  {
    type: CompactionEvents.failed,
    summary: 'A compaction gave up (after loop_control.compaction_max_attempts attempts on transient errors, at once on others); the context is unchanged',
    payload: v.object({ compaction_id: v.string(), agent_id: AgentId, error: Failure, attempts: v.number() }),
  },
  {
    type: CompactionEvents.undone,
    summary: 'POST :undo removed the last `count` turns (each user prompt and everything after it): message_ids leave the model context '
      + 'and GET /messages; last_prompt is the session\'s reconciled last_prompt',
    payload: v.object({
      agent_id: AgentId, count: v.number(), message_ids: v.array(v.string()), last_prompt: v.nullable(v.string()),
      context_chars: v.pipe(v.number(), v.description('characters of the remaining context (token estimate basis)')),
    }),
  },
];
