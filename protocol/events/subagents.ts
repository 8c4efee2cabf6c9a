import * as v from 'valibot';
import { Usage } from './common.ts';
import { defineEvent } from './define.ts';

/** Subagent lifecycle on the session's stream (Core Events "Subagents"); a subagent's own turn events carry its agent_id. */

export const SubagentSpawnedPayload = v.object({
  agent_id: v.string(), kind: v.picklist(['task', 'btw']), parent_agent_id: v.string(), parent_turn_id: v.optional(v.string()),
  parent_tool_call_id: v.optional(v.string()), description: v.string(), subagent_type: v.string(), model: v.string(),
  thinking_effort: v.pipe(v.string(), v.description('bound effort, `off` when thinking is off, `default` when the model decides')),
  task_id: v.optional(v.string()), background: v.boolean(),
  forked_from_message_id: v.optional(v.pipe(
    v.nullable(v.string()), v.description('`:btw` agents: the last main-agent message their history was forked from (null: empty history)'),
  )),
  tools: v.optional(v.array(v.string())),
});
export type SubagentSpawnedPayload = v.InferOutput<typeof SubagentSpawnedPayload>;

const spawned = defineEvent({
  type: 'subagent.spawned', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  aliases: { agent_id: 'subagentId' },
  summary: 'An agent was created in the session: `kind` task (the Agent tool; its turn events carry its agent_id) or btw '
    + '(`:btw`, read-only tools, prompted through POST /prompts with agent_id)',
  payload: SubagentSpawnedPayload,
});

const started = defineEvent({
  type: 'subagent.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  aliases: { agent_id: 'subagentId' },
  summary: 'A subagent turn started (its turn.* / message.created / tool.* events follow with the same agent_id)',
  payload: v.object({ agent_id: v.string(), turn_id: v.string() }),
});

const completed = defineEvent({
  type: 'subagent.completed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  aliases: { agent_id: 'subagentId' },
  summary: 'A subagent finished; `result` is its final answer as returned to the caller (truncated to 100,000 chars here)',
  payload: v.object({
    agent_id: v.string(), task_id: v.optional(v.string()), turn_id: v.string(), result: v.string(), usage: Usage, steps: v.number(), duration_ms: v.number(),
  }),
});

const SubagentFailure = v.picklist(['failed', 'timed_out', 'cancelled', 'interrupted']);
export type SubagentFailure = v.InferOutput<typeof SubagentFailure>;

const failed = defineEvent({
  type: 'subagent.failed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  aliases: { agent_id: 'subagentId' },
  summary: 'A subagent ended without a result: failed (model error, max steps), timed_out ([subagent] timeout_ms), cancelled (parent turn aborted, '
    + 'task cancelled, session archived) or interrupted (the daemon stopped; reported at the next start)',
  payload: v.object({
    agent_id: v.string(), task_id: v.optional(v.string()), turn_id: v.optional(v.string()), reason: SubagentFailure,
    error: v.optional(v.object({ kind: v.string(), message: v.string() })),
  }),
});

const suspended = defineEvent({
  type: 'subagent.suspended', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  aliases: { agent_id: 'subagentId' },
  summary: 'The daemon is stopping while the subagent runs: it stops here and is reported as subagent.failed (interrupted) at the next start',
  payload: v.object({ agent_id: v.string(), task_id: v.optional(v.string()), reason: v.literal('daemon_stopping') }),
});

export const SUBAGENT_EVENTS = [spawned, started, completed, failed, suspended] as const;
