import { readFile, stat } from 'node:fs/promises';
import { FILE_HISTORY_MAX_CHARS, type FileChangedPayload } from '../../protocol/events/files.ts';
import type { ToolContext } from './types.ts';

export const OVERSIZE = Symbol('oversize');

/** A file's content before a write, read only when small enough to be kept (null: no such file). */
export async function contentBefore(abs: string): Promise<string | null | typeof OVERSIZE> {
  const st = await stat(abs).catch(() => null);
  if (!st?.isFile()) return null;
  if (st.size > FILE_HISTORY_MAX_CHARS * 4) return OVERSIZE;
  return readFile(abs, 'utf8').catch(() => null);
}

/**
 * Journals what a Write or Edit call changed (`file.changed`, the input of the per-turn file history,
 * docs/file-history.md): the content before (`null`: the file did not exist) and after. Contents above
 * FILE_HISTORY_MAX_CHARS are not kept; the change is recorded `oversize`.
 */
export async function recordFileChange(ctx: ToolContext, tool: 'Write' | 'Edit', rel: string, before: string | null | typeof OVERSIZE, after: string): Promise<void> {
  const text = typeof before === 'string' ? before : null;
  const oversize = before === OVERSIZE || (text?.length ?? 0) > FILE_HISTORY_MAX_CHARS || after.length > FILE_HISTORY_MAX_CHARS;
  const payload: FileChangedPayload = {
    agent_id: ctx.agentId, tool_name: tool, path: rel, existed: before !== null,
    ...(ctx.turnId ? { turn_id: ctx.turnId } : {}), ...(ctx.toolCallId ? { tool_call_id: ctx.toolCallId } : {}),
    ...(oversize ? { oversize: true as const } : { ...(text !== null ? { before: text } : {}), after }),
  };
  await ctx.deps.journal.append([{ stream: ctx.session.id, type: 'file.changed', payload }]);
}
