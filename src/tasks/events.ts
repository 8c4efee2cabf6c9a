/** Session-stream events of background tasks (journaled) and volatile shell frames. */
export const TaskEvents = {
  started: 'task.started',
  terminated: 'task.terminated',
  shellStarted: 'shell.started',
  shellOutput: 'shell.output',
  shellCompleted: 'shell.completed',
} as const;
