import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { FileFollower } from './follow.ts';
import { childEnv } from '../lib/child-env.ts';

export type TaskStatus = 'running' | 'completed' | 'failed' | 'cancelled';
export const TASK_STATUSES: readonly TaskStatus[] = ['running', 'completed', 'failed', 'cancelled'];

/** Core "Task object" (output fields are added by the read route). */
export interface TaskObject {
  id: string; session_id: string; kind: 'bash' | 'subagent'; description: string; status: TaskStatus;
  /** Clients require it (spec/clients.md E14): false while a foreground tool call waits on the task. */
  run_in_background: boolean;
  created_at: string; started_at?: string; completed_at?: string; command?: string;
  model?: string; thinking_effort?: string; agent_id?: string; subagent_type?: string; parent_tool_call_id?: string;
  /** The tail of the output: GET with `with_output`, and a Bash task's task.terminated. */
  output_preview?: string; output_bytes?: number;
}

/** The end of a task's output, for its note: the last bytes and how many the whole output has. */
export interface TaskOutput { tail: string; totalBytes: number }

/** Why a task ended other than on its own: decides `failed` vs `cancelled`. */
export type StopReason = 'timeout' | 'cancel';

/**
 * What the task service, the task routes and the notifier need from a task: a Bash
 * command (BashTask) or a subagent (src/agents/subagent-task.ts).
 */
export interface LiveTask {
  readonly spec: { id: string; sessionId: string; description: string; logFile: string };
  status: TaskStatus;
  background: boolean;
  /** Kept running past the daemon's stop under `keep_alive_on_exit` (a process can, a subagent cannot). */
  readonly canOutliveDaemon: boolean;
  stopReason?: StopReason;
  /** Called when a foreground task moves to the background (the waiting tool call returns). */
  onBackground?: () => void;
  /** Resolves once the task has ended and its output is on disk. */
  readonly done: Promise<void>;
  stop(reason: StopReason): void;
  /** Moves a foreground task to the background; its timeout (0 = none) starts now. */
  toBackground(timeoutMs: number): void;
  toObject(): TaskObject;
  /** The note the agent gets when the background task ends (`output`: the tail of a Bash task's output). */
  notice(output?: TaskOutput): { text: string; meta: Record<string, unknown> };
}

export interface TaskSpec {
  id: string; sessionId: string; command: string; description: string; cwd: string; logFile: string;
  background: boolean; timeoutMs: number; graceMs: number; now: () => Date;
  /** The Bash tool call that started the command (the task object's `parent_tool_call_id`). */
  toolCallId?: string;
}


/** Sends `sig` to the whole process group (the command and everything it started). */
export function killGroup(pid: number, sig: NodeJS.Signals): void {
  try { process.kill(-pid, sig); } catch { /* already gone */ }
}

/** One Bash command in its own process group, its output streamed to a log file on disk. */
export class BashTask implements LiveTask {
  readonly spec: TaskSpec;
  readonly canOutliveDaemon = true;
  status: TaskStatus = 'running';
  background: boolean;
  /** Called when a foreground task moves to the background (the waiting tool call returns). */
  onBackground?: () => void;
  exitCode: number | null = null;
  stopReason?: StopReason;
  readonly createdAt: Date;
  completedAt?: Date;
  /** Resolves once the process has exited and the log is flushed. */
  readonly done: Promise<void>;
  private readonly child: ChildProcess;
  private readonly follower: FileFollower;
  private readonly listeners = new Set<(data: string) => void>();
  private timer?: NodeJS.Timeout;
  private hard?: NodeJS.Timeout;

  constructor(spec: TaskSpec) {
    this.spec = spec;
    this.background = spec.background;
    this.createdAt = spec.now();
    // The command writes straight into its log file (one descriptor for stdout and stderr keeps
    // their order): no pipe to this process, so a task kept alive past the daemon (keep_alive_on_exit)
    // never dies of SIGPIPE. The daemon follows the file for live output.
    const fd = openSync(spec.logFile, 'a');
    try {
      this.child = spawn('bash', ['-c', spec.command], { cwd: spec.cwd, detached: true, stdio: ['ignore', fd, fd], env: childEnv() });
    } finally {
      closeSync(fd);
    }
    const take = (d: string) => { for (const l of this.listeners) l(d); };
    this.follower = new FileFollower(spec.logFile, take);
    this.child.on('error', (err) => take(`\n${err.message}`));
    if (spec.background) this.armTimeout(spec.timeoutMs);
    this.done = new Promise((resolve) => {
      this.child.on('close', (code) => {
        clearTimeout(this.timer);
        clearTimeout(this.hard);
        // Leftovers of the group (e.g. `sleep &`) are not ours to keep once the task ended.
        this.killGroup('SIGKILL');
        this.exitCode = code;
        this.completedAt = spec.now();
        this.status = this.stopReason === 'cancel' ? 'cancelled' : this.stopReason === 'timeout' || code !== 0 ? 'failed' : 'completed';
        void this.follower.finish().finally(resolve);
      });
    });
  }

  get pid(): number | undefined { return this.child.pid; }

  onData(fn: (data: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Moves a foreground task to the background; its timeout (0 = none) starts now. */
  toBackground(timeoutMs: number): void {
    if (this.background) return;
    this.background = true;
    this.armTimeout(timeoutMs);
    this.onBackground?.();
  }

  /** TERM to the group, KILL after the grace period. */
  stop(reason: StopReason): void {
    if (this.status !== 'running' || this.stopReason) return;
    this.stopReason = reason;
    this.killGroup('SIGTERM');
    this.hard = setTimeout(() => this.killGroup('SIGKILL'), this.spec.graceMs);
  }

  toObject(): TaskObject {
    const o: TaskObject = {
      id: this.spec.id, session_id: this.spec.sessionId, kind: 'bash', description: this.spec.description, status: this.status,
      run_in_background: this.background, created_at: this.createdAt.toISOString(), started_at: this.createdAt.toISOString(), command: this.spec.command,
    };
    if (this.completedAt) o.completed_at = this.completedAt.toISOString();
    if (this.spec.toolCallId) o.parent_tool_call_id = this.spec.toolCallId;
    return o;
  }

  /** Status, exit code (or the signal that ended it) and the tail of the output: what the agent needs without reading the log. */
  notice(output?: TaskOutput): { text: string; meta: Record<string, unknown> } {
    const o = this.toObject();
    const why = this.stopReason === 'timeout' ? ' (timed out)' : this.stopReason === 'cancel' ? ' (cancelled)' : '';
    const head = `Background task ${o.id} (${o.command}) ended: status ${o.status}${why}`
      + `${this.exitCode !== null ? `, exit code ${this.exitCode}` : ''}.`;
    const text = `<task-notification>\n${head}\n${outputSection(output, this.spec.logFile)}\n</task-notification>`;
    return { text, meta: { task_id: o.id, status: o.status, exit_code: this.exitCode, ...(output ? { output_bytes: output.totalBytes } : {}) } };
  }

  private armTimeout(ms: number): void {
    if (ms > 0) this.timer = setTimeout(() => this.stop('timeout'), ms);
  }

  private killGroup(sig: NodeJS.Signals): void {
    if (this.child.pid) killGroup(this.child.pid, sig);
  }
}

/** The output part of a Bash task's note: the tail (all of it when short), and where the rest is. */
function outputSection(output: TaskOutput | undefined, logFile: string): string {
  if (!output) return `Its output is in ${logFile}.`;
  if (output.totalBytes === 0) return 'It printed nothing.';
  const tailBytes = Buffer.byteLength(output.tail);
  const what = tailBytes < output.totalBytes ? `the last ${tailBytes} of ${output.totalBytes} bytes; all of it is in ${logFile}` : `${output.totalBytes} bytes`;
  return `Output (${what}):\n${output.tail}${output.tail.endsWith('\n') ? '' : '\n'}[end of output]`;
}
