import { spawn } from 'node:child_process';
import * as v from 'valibot';
import { runForegroundAdoptable, runInBackground } from '../tasks/bash-run.ts';
import { recordDeletions } from './file-history.ts';
import { truncateMiddle } from './truncate.ts';
import { defineTool, ToolError, type ToolContext } from './types.ts';
import { childEnv } from '../lib/child-env.ts';

const DEFAULT_TIMEOUT = 120_000;
const MAX_TIMEOUT = 600_000;
const KILL_GRACE_MS = 2_000;

const Input = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1), v.description('The command, run with bash -c in the workspace root')),
  timeout: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TIMEOUT), v.description(`Milliseconds (default ${DEFAULT_TIMEOUT}, max ${MAX_TIMEOUT})`))),
  description: v.optional(v.pipe(v.string(), v.description('Short note on what the command does'))),
  run_in_background: v.optional(v.pipe(v.boolean(), v.description('Start as a background task and return its id at once; a task notification arrives when it ends'))),
});

interface Finished { output: string; code: number | null; signal: string | null; why?: 'timeout' | 'aborted' }

/** Sends `sig` to the whole process group (the command and everything it started). */
function killGroup(pid: number, sig: NodeJS.Signals): void {
  try { process.kill(-pid, sig); } catch { /* already gone */ }
}

/** Runs `command` in its own process group; TERM then KILL after a grace on timeout or abort. */
export function runCommand(command: string, cwd: string, timeoutMs: number, signal: AbortSignal, onData?: (text: string) => void): Promise<Finished> {
  return new Promise((resolve) => {
    // One pipe for both streams keeps stdout and stderr in the order they were written.
    const child = spawn('bash', ['-c', `exec 2>&1\n${command}`], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
    const chunks: string[] = [];
    const take = (d: string) => { chunks.push(d); onData?.(d); };
    child.stdout.setEncoding('utf8').on('data', take);
    child.stderr.setEncoding('utf8').on('data', take);
    let why: Finished['why'];
    let hard: NodeJS.Timeout | undefined;
    const stop = (reason: 'timeout' | 'aborted') => {
      if (why) return;
      why = reason;
      killGroup(child.pid!, 'SIGTERM');
      hard = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    child.on('error', (err) => chunks.push(`\n${err.message}`));
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      if (hard) clearTimeout(hard);
      // Leftovers of a finished command's group (e.g. `sleep &`) are not ours to keep either.
      if (why) killGroup(child.pid!, 'SIGKILL');
      signal.removeEventListener('abort', onAbort);
      resolve({ output: chunks.join(''), code, signal: sig, why });
    });
  });
}

export const bashTool = defineTool({
  name: 'Bash',
  description: `Runs a shell command (bash -c) in the workspace root and returns its combined stdout/stderr (at most 30000 characters, head and tail kept) and exit code. Default timeout ${DEFAULT_TIMEOUT} ms.`,
  schema: Input,
  readOnly: false,
  async run(input, ctx) {
    if (input.run_in_background) return runInBackground(input, ctx);
    try {
      return await foreground(input, ctx);
    } finally {
      // Files the agent wrote that the command removed: `deleted` in the turn's file history.
      await recordDeletions(ctx).catch((err: unknown) => ctx.deps.log?.warn?.({ err }, 'file history: deletion check failed'));
    }
  },
});

async function foreground(input: v.InferOutput<typeof Input>, ctx: ToolContext): Promise<string> {
  const timeout = input.timeout ?? DEFAULT_TIMEOUT;
  // A timed-out (or detached) command moves to the background instead of being killed.
  if (ctx.config.background.bash_auto_background_on_timeout) return runForegroundAdoptable(input, ctx, timeout);
  // Live output for watching clients (volatile); the result still carries the whole (budgeted) output.
  const r = await runCommand(input.command, ctx.session.cwd, timeout, ctx.signal, (output) => ctx.progress({ output: output.slice(0, 4096) }));
  const status = r.why === 'timeout' ? `[timed out after ${timeout} ms; process group killed]`
    : r.why === 'aborted' ? '[aborted; process group killed]'
      : r.code !== null ? `[exit code ${r.code}]` : `[killed by ${r.signal}]`;
  const body = truncateMiddle(r.output);
  const text = body ? `${body}${body.endsWith('\n') ? '' : '\n'}${status}` : status;
  if (r.why) throw new ToolError(text);
  return text;
}
