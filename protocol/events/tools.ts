import * as v from 'valibot';
import { callArgs, callDisplay, progressUpdate, toolDescription, toolOutput } from '../display.ts';
import { DisplayBlock } from '../schemas/approvals.ts';
import { AgentId } from './common.ts';
import { defineEvent } from './define.ts';

/** Tool calls the agent runs (streamed arguments are in deltas.ts). */

const callStarted = defineEvent({
  type: 'tool.call.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A tool call is about to run (before the [tools] re-check, permission gate and input validation)',
  payload: v.object({ agent_id: AgentId, turn_id: v.optional(v.string()), tool_call_id: v.string(), tool_name: v.string(), input: v.unknown() }),
  turn: 'step',
  extend: {
    cwd: true,
    entries: {
      name: v.pipe(v.string(), v.description('= tool_name')),
      args: v.pipe(v.record(v.string(), v.unknown()), v.description('the parsed arguments (`input`; `{}` when the model sent no object)')),
      description: v.pipe(v.string(), v.description('the call in one line (a Bash call\'s description or command, a path, a pattern, ...), else the tool\'s name')),
      display: v.pipe(DisplayBlock, v.description('the call as a display block: Bash `{kind:"command", command, cwd, language:"bash"}`, Edit `diff`, Read / Write `file_io`, TodoWrite `todo_list`, ..., any other tool `invocation`')),
    },
    build: (p, w) => {
      const name = p.tool_name as string;
      return { name, args: callArgs(p.input), description: toolDescription(name, p.input), display: callDisplay(name, p.input, { cwd: w.cwd }) };
    },
  },
});

const result = defineEvent({
  type: 'tool.result', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A tool call finished; content is what the model gets, cut to 100000 characters here',
  payload: v.object({
    agent_id: AgentId, turn_id: v.optional(v.string()), tool_call_id: v.string(), tool_name: v.string(), is_error: v.boolean(), content: v.string(),
    duration_ms: v.number(),
  }),
  turn: 'step',
  extend: {
    entries: { output: v.pipe(v.string(), v.description('the tool\'s own output (`content` without the status line Bash adds: `hi\\n` for `echo hi`)')) },
    build: (p) => ({ output: toolOutput(p.tool_name as string, p.content as string) }),
  },
});

const progress = defineEvent({
  type: 'tool.progress', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'delta',
  summary: 'Progress of a running tool call (tool-specific fields besides the ids: Bash `output`, a chunk of its output; MCP tools `progress`, `total?`, '
    + '`message?`); on the transcript channel (grade delta) the tool frame\'s `progress`',
  payload: v.looseObject({ agent_id: AgentId, tool_call_id: v.string(), tool_name: v.string() }),
  turn: 'step',
  extend: {
    entries: { update: v.pipe(v.looseObject({ kind: v.string(), text: v.optional(v.string()) }), v.description('the progress as `{kind, text?}`: `stdout` (a chunk of Bash output), `progress` (MCP, with `percent?`), `custom`')) },
    build: (p) => ({ update: progressUpdate(p) }),
  },
});

export const TOOL_EVENTS = [callStarted, result, progress] as const;
