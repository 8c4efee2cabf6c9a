import type { Family, TranscriptState } from './state.ts';
import type { TaskRec } from '../contract.ts';

/** The latest object of each task. */
function latest(s: TranscriptState, task: TaskRec | undefined): void {
  if (task) s.tasks.set(task.id, task);
}

/** The session's background tasks (GET /transcript `tasks`), whichever agent started them. */
export const tasks = {
  'task.started': (s, p) => latest(s, p?.task),
  'task.terminated': (s, p) => latest(s, p?.task),
} satisfies Family;
