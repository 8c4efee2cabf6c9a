import * as v from 'valibot';
import { TaskObject } from '../schemas/tasks.ts';
import { defineEvent } from './define.ts';

/** Background tasks: lifecycle facts on the session's stream, and the volatile shell frames of Bash tasks (in no transcript). */

const started = defineEvent({
  type: 'task.started', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A Bash command started as a background task, or a foreground one moved to the background',
  payload: v.object({ task: TaskObject }),
});

const terminated = defineEvent({
  type: 'task.terminated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A background task ended (completed / failed incl. timed out / cancelled); the agent then gets a note: message.created with metadata.task_notification',
  payload: v.object({ task: TaskObject }),
});

const shellStarted = defineEvent({
  type: 'shell.started', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'none',
  summary: 'A background task\'s shell started',
  payload: v.object({ task_id: v.string(), command: v.string() }),
});

const shellOutput = defineEvent({
  type: 'shell.output', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'none',
  summary: 'Output of a background task (also in its log file)',
  payload: v.object({ task_id: v.string(), data: v.string() }),
});

const shellCompleted = defineEvent({
  type: 'shell.completed', stream: 'session', durability: 'volatile', receivers: 'subscribers', transcript: 'none',
  summary: 'A background task\'s shell exited (exit_code null when killed by a signal)',
  payload: v.object({ task_id: v.string(), exit_code: v.nullable(v.number()) }),
});

export const TASK_EVENTS = [started, terminated, shellStarted, shellOutput, shellCompleted] as const;
