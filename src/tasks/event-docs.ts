import * as v from 'valibot';
import { TaskObject } from '../http/schemas/tasks.ts';
import type { EventDoc } from '../ws/event-payloads.ts';
import { TaskEvents } from './events.ts';

/** Journaled task events of a session stream, for /asyncapi.json. */
export const TASK_SESSION_EVENT_DOCS: EventDoc[] = [
  { type: TaskEvents.started, summary: 'A Bash command started as a background task, or a foreground one moved to the background', payload: v.object({ task: TaskObject }) },
  {
    type: TaskEvents.terminated,
    summary: 'A background task ended (completed / failed incl. timed out / cancelled); the agent then gets a note: message.created with metadata.task_notification',
    payload: v.object({ task: TaskObject }),
  },
];

/** Volatile shell frames of background tasks. */
export const TASK_VOLATILE_DOCS: EventDoc[] = [
  { type: TaskEvents.shellStarted, summary: 'A background task\'s shell started', payload: v.object({ task_id: v.string(), command: v.string() }) },
  { type: TaskEvents.shellOutput, summary: 'Output of a background task (also in its log file)', payload: v.object({ task_id: v.string(), data: v.string() }) },
  { type: TaskEvents.shellCompleted, summary: 'A background task\'s shell exited (exit_code null when killed by a signal)', payload: v.object({ task_id: v.string(), exit_code: v.nullable(v.number()) }) },
];
