import type { EventType } from '../../protocol/events/registry.ts';

/** Session-stream events of background tasks (journaled) and volatile shell frames (schemas: protocol/events/tasks.ts). */
export const TaskEvents = {
  started: 'task.started',
  terminated: 'task.terminated',
  shellStarted: 'shell.started',
  shellOutput: 'shell.output',
  shellCompleted: 'shell.completed',
} as const satisfies Record<string, EventType>;
