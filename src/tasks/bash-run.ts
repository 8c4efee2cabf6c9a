import { truncateMiddle } from '../tools/truncate.ts';
import { ToolError, type ToolContext } from '../tools/types.ts';
import type { BashTask } from './task.ts';

export interface BashCall { command: string; description?: string; timeout?: number }

const bg = (ctx: ToolContext) => ctx.config.background;
const bgTimeoutMs = (ctx: ToolContext) => bg(ctx).bash_task_timeout_s * 1000;

function startOpts(ctx: ToolContext, input: BashCall, background: boolean) {
  return {
    sessionId: ctx.session.id, command: input.command, description: input.description, cwd: ctx.session.cwd, background,
    timeoutMs: input.timeout ?? bgTimeoutMs(ctx), graceMs: bg(ctx).kill_grace_period_ms, maxRunning: bg(ctx).max_running_tasks,
    ...(ctx.toolCallId ? { toolCallId: ctx.toolCallId } : {}),
  };
}

/** `run_in_background: true`: starts the task and answers at once with its id. */
export async function runInBackground(input: BashCall, ctx: ToolContext): Promise<string> {
  let task: BashTask;
  try { task = await ctx.deps.tasks.start(startOpts(ctx, input, true)); } catch (err) { throw new ToolError((err as Error).message); }
  return `Started background task ${task.spec.id}. Its output goes to ${task.spec.logFile}; a task notification arrives when it ends.`;
}

/**
 * Foreground run with bash_auto_background_on_timeout: the command runs as a foreground
 * task; on timeout or POST :detach it moves to the background instead of being killed.
 */
export async function runForegroundAdoptable(input: BashCall, ctx: ToolContext, timeoutMs: number): Promise<string> {
  const task = await ctx.deps.tasks.start({ ...startOpts(ctx, input, false), maxRunning: undefined });
  const chunks: string[] = [];
  const off = task.onData((d) => { chunks.push(d); if (!task.background) ctx.progress({ output: d.slice(0, 4096) }); });
  let timer: NodeJS.Timeout | undefined;
  const moved = new Promise<'timeout' | 'detached'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    task.onBackground = () => resolve('detached');
  });
  const onAbort = () => ctx.deps.tasks.cancel(task);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) onAbort();
  try {
    const how = await Promise.race([task.done.then(() => 'done' as const), moved]);
    const body = truncateMiddle(chunks.join(''));
    const withBody = (status: string) => (body ? `${body}${body.endsWith('\n') ? '' : '\n'}${status}` : status);
    if (how === 'done') {
      if (task.stopReason === 'cancel') throw new ToolError(withBody('[aborted; process group killed]'));
      return withBody(task.exitCode !== null ? `[exit code ${task.exitCode}]` : '[killed by signal]');
    }
    if (how === 'timeout') await ctx.deps.tasks.detach(task, bgTimeoutMs(ctx));
    const why = how === 'timeout' ? `timed out after ${timeoutMs} ms` : 'detached';
    return withBody(`[${why}; moved to background as task ${task.spec.id}; a task notification arrives when it ends]`);
  } finally {
    clearTimeout(timer);
    off();
    ctx.signal.removeEventListener('abort', onAbort);
  }
}
