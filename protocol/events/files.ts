import * as v from 'valibot';
import { AgentId } from './common.ts';
import { defineEvent, type PayloadOfDef } from './define.ts';

/**
 * Files the agent's Write and Edit tools changed, and files they wrote that a Bash command then removed: the
 * per-turn file history (docs/file-history.md).
 */

/** Contents above this many characters are not journaled (the change is recorded `oversize`). */
export const FILE_HISTORY_MAX_CHARS = 256 * 1024;

const changed = defineEvent({
  type: 'file.changed', stream: 'session', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'Write or Edit changed a file (its content before, absent when the file did not exist, and after), or a file they wrote is gone after a Bash command (`deleted`); read through /file-history',
  payload: v.object({
    agent_id: AgentId,
    turn_id: v.optional(v.string()),
    tool_call_id: v.optional(v.string()),
    tool_name: v.string(),
    path: v.pipe(v.string(), v.description('relative to the workspace root (absolute in an additional dir)')),
    existed: v.pipe(v.boolean(), v.description('whether the file existed before the call')),
    before: v.optional(v.pipe(v.string(), v.maxLength(FILE_HISTORY_MAX_CHARS), v.description('the content before (when it existed and was not oversize)'))),
    after: v.optional(v.pipe(v.string(), v.maxLength(FILE_HISTORY_MAX_CHARS), v.description('the content after (unless oversize)'))),
    oversize: v.optional(v.pipe(v.literal(true), v.description(`before or after was above ${FILE_HISTORY_MAX_CHARS} characters: no content is kept`))),
    deleted: v.optional(v.pipe(v.literal(true), v.description('the file no longer exists after the call (no `after`); `before` is its last recorded content'))),
  }),
});

export const FILE_EVENTS = [changed] as const;
export type FileChangedPayload = PayloadOfDef<typeof changed>;
