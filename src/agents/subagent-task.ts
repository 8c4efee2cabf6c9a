import { writeFile } from 'node:fs/promises';
import type { LiveTask, StopReason, TaskObject, TaskStatus } from '../tasks/task.ts';

export interface SubagentTaskSpec {
  id: string; sessionId: string; description: string; logFile: string;
  agentId: string; subagentType: string; model: string; thinkingEffort: string; parentToolCallId?: string;
  background: boolean; now: () => Date;
}

/**
 * A subagent as a task (Core "Task object", kind `subagent`): listed, cancelled and
 * detached like a Bash task. Its output file holds the final answer (or the failure).
 */
export class SubagentTask implements LiveTask {
  status: TaskStatus = 'running';
  background: boolean;
  readonly canOutliveDaemon = false;
  stopReason?: StopReason;
  onBackground?: () => void;
  readonly done: Promise<void>;
  readonly controller = new AbortController();
  result = '';
  private readonly createdAt: Date;
  private completedAt?: Date;
  private resolveDone!: () => void;

  constructor(readonly spec: SubagentTaskSpec) {
    this.background = spec.background;
    this.createdAt = spec.now();
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  /** Cancel or time out: aborts the subagent's turn (its model request and tools). */
  stop(reason: StopReason): void {
    if (this.status !== 'running' || this.stopReason) return;
    this.stopReason = reason;
    this.controller.abort(reason);
  }

  toBackground(): void {
    if (this.background) return;
    this.background = true;
    this.onBackground?.();
  }

  /** Records the end: the output file first, then `done`. */
  async settle(status: TaskStatus, output: string): Promise<void> {
    this.result = output;
    await writeFile(this.spec.logFile, output).catch(() => undefined);
    this.status = status;
    this.completedAt = this.spec.now();
    this.resolveDone();
  }

  toObject(): TaskObject {
    const s = this.spec;
    const o: TaskObject = {
      id: s.id, session_id: s.sessionId, kind: 'subagent', description: s.description, status: this.status,
      run_in_background: this.background, created_at: this.createdAt.toISOString(), started_at: this.createdAt.toISOString(),
      model: s.model, thinking_effort: s.thinkingEffort, agent_id: s.agentId, subagent_type: s.subagentType,
      ...(s.parentToolCallId ? { parent_tool_call_id: s.parentToolCallId } : {}),
    };
    if (this.completedAt) o.completed_at = this.completedAt.toISOString();
    return o;
  }

  /** The subagent's final answer (cut at 20,000 characters) is the note's body. */
  notice(): { text: string; meta: Record<string, unknown> } {
    const o = this.toObject();
    const body = this.result.length > 20_000 ? `${this.result.slice(0, 20_000)}\n[… truncated; full text in ${this.spec.logFile}]` : this.result;
    return subagentNotice({ agent_id: o.agent_id!, task_id: o.id, description: o.description, status: o.status }, body);
  }
}

/** The task notification of a background subagent (also written at restart for one the stop cut off). */
export function subagentNotice(a: { agent_id: string; task_id: string; description: string; status: TaskStatus }, body: string) {
  const text = `<task-notification>\nBackground agent ${a.agent_id} (task ${a.task_id}, "${a.description}") ended: status ${a.status}.\n`
    + `${body}\n</task-notification>`;
  return { text, meta: { task_id: a.task_id, status: a.status, agent_id: a.agent_id } };
}
