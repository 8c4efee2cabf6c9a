import * as v from 'valibot';
import { AgentId } from './common.ts';
import { defineEvent } from './define.ts';

/** Tool calls the agent runs (streamed arguments are in deltas.ts). */

const callStarted = defineEvent({
  type: 'tool.call.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A tool call is about to run (before the [tools] re-check, permission gate and input validation)',
  payload: v.object({ agent_id: AgentId, turn_id: v.optional(v.string()), tool_call_id: v.string(), tool_name: v.string(), input: v.unknown() }),
});

const result = defineEvent({
  type: 'tool.result', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A tool call finished; content is what the model gets, cut to 100000 characters here',
  payload: v.object({
    agent_id: AgentId, turn_id: v.optional(v.string()), tool_call_id: v.string(), tool_name: v.string(), is_error: v.boolean(), content: v.string(),
    duration_ms: v.number(),
  }),
});

const progress = defineEvent({
  type: 'tool.progress', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'delta',
  summary: 'Progress of a running tool call (tool-specific fields besides the ids: Bash `output`, a chunk of its output; MCP tools `progress`, `total?`, '
    + '`message?`); on the transcript channel (grade delta) the tool frame\'s `progress`',
  payload: v.looseObject({ agent_id: AgentId, tool_call_id: v.string(), tool_name: v.string() }),
});

export const TOOL_EVENTS = [callStarted, result, progress] as const;
