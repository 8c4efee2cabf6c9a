import * as v from 'valibot';
import { TaskObject } from '../schemas/tasks.ts';
import { defineEvent } from './define.ts';

/** The `info` web clients read on task.started / task.terminated (spec/clients.md A6), from the task object. */
const TaskInfo = v.pipe(
  v.object({
    taskId: v.string(), kind: v.string(), agentId: v.optional(v.string()), description: v.string(), command: v.optional(v.string()),
    startedAt: v.pipe(v.number(), v.description('epoch ms')), status: v.string(), exitCode: v.optional(v.nullable(v.number())),
  }),
  v.description('the task as web clients read it (kind `agent` for subagent tasks)'),
);
const taskInfo = {
  entries: { info: TaskInfo },
  build(p: Record<string, unknown>) {
    const t = p.task as { id: string; kind: string; agent_id?: string; description: string; command?: string; started_at?: string; created_at: string; status: string };
    const info: Record<string, unknown> = {
      taskId: t.id, kind: t.kind === 'subagent' ? 'agent' : t.kind, description: t.description, startedAt: Date.parse(t.started_at ?? t.created_at), status: t.status,
    };
    if (t.agent_id) info.agentId = t.agent_id;
    if (t.command !== undefined) info.command = t.command;
    return { info };
  },
};

/** Background tasks: lifecycle facts on the session's stream, and the volatile shell frames of Bash tasks (in no transcript). */

const started = defineEvent({
  type: 'task.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A Bash command started as a background task, or a foreground one moved to the background',
  payload: v.object({ task: TaskObject }),
  extend: taskInfo,
});

const terminated = defineEvent({
  type: 'task.terminated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A background task ended (completed / failed incl. timed out / cancelled); the agent then gets a note (metadata.task_notification) '
    + 'before its next model request, or as the prompt of a follow-up turn (prompt.accepted source `task`) when it is idle. '
    + 'A bash task\'s object carries the tail of its output (`output_preview`, `output_bytes`)',
  payload: v.object({ task: TaskObject }),
  extend: taskInfo,
});

const shellStarted = defineEvent({
  type: 'shell.started', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'none',
  summary: 'A background task\'s shell started',
  payload: v.object({ task_id: v.string(), command: v.string() }),
});

const shellOutput = defineEvent({
  type: 'shell.output', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'delta',
  summary: 'Output of a background task (also in its log file); on main\'s transcript channel (grade delta) an `append` to the task\'s `outputTail`',
  payload: v.object({ task_id: v.string(), data: v.string() }),
});

const shellCompleted = defineEvent({
  type: 'shell.completed', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'none',
  summary: 'A background task\'s shell exited (exit_code null when killed by a signal)',
  payload: v.object({ task_id: v.string(), exit_code: v.nullable(v.number()) }),
});

export const TASK_EVENTS = [started, terminated, shellStarted, shellOutput, shellCompleted] as const;
