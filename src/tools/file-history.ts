import { lstat, readFile, stat } from 'node:fs/promises';
import { lastContentOf } from '../../projections/file-history/reducer.ts';
import { FILE_HISTORY_MAX_CHARS, type FileChangedPayload } from '../../protocol/events/files.ts';
import type { ToolContext } from './types.ts';
import { mapLimit } from '../fs/pool.ts';

export const OVERSIZE = Symbol('oversize');

/** Paths the Bash deletion check confines and lstats at once (up to EXISTING_PATHS_MAX paths a command). */
const DELETION_CHECK_CONCURRENCY = 16;

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

/**
 * After a foreground Bash command: each file the history last saw existing (a Write or Edit made it) that is
 * gone now is recorded deleted in this turn (`file.changed` with `deleted`, `before` its last recorded
 * content), so `rm` of a file the agent wrote shows as `deleted` in /file-history. Files Write and Edit never
 * touched are not tracked. A failure here never fails the command.
 */
export async function recordDeletions(ctx: ToolContext): Promise<void> {
  // Kept per session beside the history (no fold of the session unless it is not known); usually empty.
  const paths = await ctx.deps.fileHistory.existingPaths(ctx.session.id);
  if (!paths.length) return;
  const confine = await ctx.confiner();
  const removed = await mapLimit(paths, DELETION_CHECK_CONCURRENCY, async (p) => {
    const abs = await confine(p).then((c) => c.abs, () => undefined);
    return abs !== undefined && lstat(abs).then(() => false, (err: NodeJS.ErrnoException) => err.code === 'ENOENT' || err.code === 'ENOTDIR');
  });
  const gone = paths.filter((_, i) => removed[i]);
  if (!gone.length) return;
  // One read for every removed file's last content, one append for all of them.
  const lasts = await ctx.deps.fileHistory.read(ctx.session.id, (s) => gone.map((p) => [p, lastContentOf(s, p)] as const));
  const events = lasts.flatMap(([p, f]) => {
    if (!f) return [];
    const payload: FileChangedPayload = {
      agent_id: ctx.agentId, tool_name: 'Bash', path: p, existed: true, deleted: true,
      ...(ctx.turnId ? { turn_id: ctx.turnId } : {}), ...(ctx.toolCallId ? { tool_call_id: ctx.toolCallId } : {}),
      ...(f.oversize ? { oversize: true as const } : { before: f.content ?? '' }),
    };
    return [{ stream: ctx.session.id, type: 'file.changed' as const, payload }];
  });
  if (events.length) await ctx.deps.journal.append(events);
}
