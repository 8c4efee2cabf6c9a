import * as v from 'valibot';
import { AgentId } from './common.ts';
import { defineEvent } from './define.ts';

/** Hook runs (docs/hooks.md): each run of a hook command is recorded once, a `hook` marker in the transcript. */

const hookResult = defineEvent({
  type: 'hook.result', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A hook command ran: its event, origin, outcome (ok / blocked / error / timed_out), decision and reason',
  payload: v.object({
    agent_id: AgentId,
    turn_id: v.optional(v.string()),
    hook_event: v.picklist(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionStart']),
    matcher: v.optional(v.string()),
    command: v.pipe(v.string(), v.description('the command, cut to 200 characters')),
    origin: v.pipe(v.string(), v.description('`config` or `plugin:<id>`')),
    tool_name: v.optional(v.string()),
    tool_call_id: v.optional(v.string()),
    outcome: v.picklist(['ok', 'blocked', 'error', 'timed_out']),
    decision: v.optional(v.picklist(['allow', 'deny', 'ask', 'block'])),
    reason: v.optional(v.string()),
    exit_code: v.optional(v.nullable(v.number())),
    duration_ms: v.number(),
  }),
});

export const HOOK_EVENTS = [hookResult] as const;
