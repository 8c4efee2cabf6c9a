import * as v from 'valibot';
import type { EventDoc } from '../ws/event-payloads.ts';

/** Subagent lifecycle events on the session stream (Core Events "Subagents"). */
export const SubagentEvents = {
  spawned: 'subagent.spawned',
  started: 'subagent.started',
  suspended: 'subagent.suspended',
  completed: 'subagent.completed',
  failed: 'subagent.failed',
} as const;

export type SubagentKind = 'task' | 'btw';
export type SubagentFailure = 'failed' | 'timed_out' | 'cancelled' | 'interrupted';

export interface SubagentSpawnedPayload {
  agent_id: string;
  kind: SubagentKind;
  parent_agent_id: string;
  parent_turn_id?: string;
  parent_tool_call_id?: string;
  description: string;
  subagent_type: string;
  model: string;
  thinking_effort: string;
  task_id?: string;
  background: boolean;
  /** `:btw` agents: the last main-agent message their history was forked from (null: empty history). */
  forked_from_message_id?: string | null;
  tools?: string[];
}

const Usage = v.object({ input_tokens: v.number(), output_tokens: v.number(), cache_read_tokens: v.number(), cache_creation_tokens: v.number() });
const ErrorInfo = v.object({ kind: v.string(), message: v.string() });

/** Journaled subagent events, for /asyncapi.json. */
export const SUBAGENT_EVENT_DOCS: EventDoc[] = [
  {
    type: SubagentEvents.spawned,
    summary: 'An agent was created in the session: `kind` task (the Agent tool; its turn events carry its agent_id) or btw (`:btw`, read-only tools, prompted through POST /prompts with agent_id)',
    payload: v.object({
      agent_id: v.string(), kind: v.picklist(['task', 'btw']), parent_agent_id: v.string(), parent_turn_id: v.optional(v.string()),
      parent_tool_call_id: v.optional(v.string()), description: v.string(), subagent_type: v.string(), model: v.string(),
      thinking_effort: v.pipe(v.string(), v.description('bound effort, `off` when thinking is off, `default` when the model decides')),
      task_id: v.optional(v.string()), background: v.boolean(), forked_from_message_id: v.optional(v.nullable(v.string())), tools: v.optional(v.array(v.string())),
    }),
  },
  { type: SubagentEvents.started, summary: 'A subagent turn started (its turn.* / message.created / tool.* events follow with the same agent_id)', payload: v.object({ agent_id: v.string(), turn_id: v.string() }) },
  {
    type: SubagentEvents.completed,
    summary: 'A subagent finished; `result` is its final answer as returned to the caller (truncated to 100,000 chars here)',
    payload: v.object({ agent_id: v.string(), task_id: v.optional(v.string()), turn_id: v.string(), result: v.string(), usage: Usage, steps: v.number(), duration_ms: v.number() }),
  },
  {
    type: SubagentEvents.failed,
    summary: 'A subagent ended without a result: failed (model error, max steps), timed_out ([subagent] timeout_ms), cancelled (parent turn aborted, task cancelled, session archived) or interrupted (the daemon stopped; reported at the next start)',
    payload: v.object({
      agent_id: v.string(), task_id: v.optional(v.string()), turn_id: v.optional(v.string()),
      reason: v.picklist(['failed', 'timed_out', 'cancelled', 'interrupted']), error: v.optional(ErrorInfo),
    }),
  },
  {
    type: SubagentEvents.suspended,
    summary: 'The daemon is stopping while the subagent runs: it stops here and is reported as subagent.failed (interrupted) at the next start',
    payload: v.object({ agent_id: v.string(), task_id: v.optional(v.string()), reason: v.literal('daemon_stopping') }),
  },
];
