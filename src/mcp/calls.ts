import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ProgressParams, ProgressRouter } from './transport.ts';

export interface CallOptions {
  signal: AbortSignal;
  onProgress?: (p: ProgressParams) => void;
}

/** Whether the server can run tools as tasks (its `tasks.requests.tools.call` capability). */
export function runsTaskTools(client: Client | undefined): boolean {
  return client?.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
}

/**
 * Whether a tool can be offered: a tool whose `execution.taskSupport` is `required` only runs as a task,
 * so it is offered only when the server says it runs tool calls as tasks (then it is called as one).
 */
export function callable(t: Tool, tasks: boolean): boolean {
  return t.execution?.taskSupport !== 'required' || tasks;
}

/**
 * One tool call within `timeoutMs` (the SDK cancels it on the server when it ends early). Progress comes
 * through the router (in read order, before the result). A task-required tool runs as a task: created,
 * polled until it ends (its status messages become progress messages), cancelled on abort.
 */
export async function callOnce(client: Client, router: ProgressRouter, tool: Tool | undefined, name: string, args: Record<string, unknown>, opts: CallOptions, timeoutMs: number): Promise<CallToolResult> {
  // One signal per call: the SDK leaves its abort listener on the signal it is given, and a turn makes many calls.
  const own = new AbortController();
  const forward = () => own.abort(opts.signal.reason);
  if (opts.signal.aborted) forward();
  else opts.signal.addEventListener('abort', forward, { once: true });
  const progress = opts.onProgress ? router.register(opts.onProgress) : undefined;
  const params = { name, arguments: args, ...(progress ? { _meta: { progressToken: progress.token } } : {}) };
  const options = { signal: own.signal, timeout: timeoutMs, maxTotalTimeout: timeoutMs, resetTimeoutOnProgress: false };
  try {
    if (tool?.execution?.taskSupport === 'required') return await asTask(client, params, options, timeoutMs, opts.onProgress);
    return (await client.callTool(params, undefined, options)) as CallToolResult;
  } finally {
    progress?.done();
    opts.signal.removeEventListener('abort', forward);
  }
}

type Params = { name: string; arguments: Record<string, unknown>; _meta?: { progressToken: string } };
type Options = { signal: AbortSignal; timeout: number; maxTotalTimeout: number; resetTimeoutOnProgress: boolean };

async function asTask(client: Client, params: Params, options: Options, timeoutMs: number, onProgress?: (p: ProgressParams) => void): Promise<CallToolResult> {
  // The tool timeout bounds the whole task, not each poll.
  const whole = AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]);
  let taskId: string | undefined;
  let polls = 0;
  try {
    for await (const m of client.experimental.tasks.callToolStream(params, undefined, { ...options, signal: whole, task: {} })) {
      if (m.type === 'taskCreated') taskId = m.task.taskId;
      else if (m.type === 'taskStatus' && m.task.statusMessage) onProgress?.({ progress: ++polls, message: m.task.statusMessage });
      else if (m.type === 'result') return m.result as CallToolResult;
      else if (m.type === 'error') throw m.error;
    }
    throw new Error('the task ended without a result');
  } catch (err) {
    if (taskId && whole.aborted) {
      // The cancel is best effort; its failure goes into the error the caller gets instead of being dropped.
      const cancel = await client.experimental.tasks.cancelTask(taskId, { timeout: 5000 }).then(() => 'cancelled', (e: Error) => `the cancel failed: ${e.message}`);
      if (!options.signal.aborted) throw new Error(`the task did not finish within ${timeoutMs} ms (timed out; ${cancel})`);
    }
    throw err;
  }
}
