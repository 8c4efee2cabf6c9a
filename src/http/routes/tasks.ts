import { findSession } from '../../sessions/lookup.ts';
import type { LiveTask } from '../../tasks/task.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { EmptyBody } from '../../../protocol/schemas/sessions.ts';
import { TaskCancelData, TaskDetachData, TaskListData, TaskListQuery, TaskObject, TaskParams, TaskReadQuery } from '../../../protocol/schemas/tasks.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import type { ConfigService } from '../../config/service.ts';
import type { SessionLookup } from '../../sessions/lookup.ts';
import type { TaskService } from '../../tasks/service.ts';

const tags = ['tasks'];
const DEFAULT_OUTPUT_BYTES = 32768;

/** A task being stopped (grace period running) already has its terminal status decided. */
const finalStatus = (t: LiveTask) => (t.stopReason === 'cancel' ? 'cancelled' : t.stopReason === 'timeout' ? 'failed' : t.status);

export type TaskRouteDeps = SessionLookup & { tasks: TaskService; config: ConfigService };

/**
 * Core "Background tasks": live-only, so a cold session lists none. A running foreground
 * Bash command is listed too (so it can be detached); once it ends in the foreground it is dropped.
 */
export function taskRoutes(deps: TaskRouteDeps): RouteDef[] {
  const taskOf = (p: { session_id: string; task_id: string }) => deps.tasks.get(findSession(deps, p.session_id).id, p.task_id);
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/tasks', operationId: 'listTasks', summary: 'Background tasks of the session', tags,
      params: SessionIdParams, query: TaskListQuery, data: TaskListData, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: ({ params, query }) => {
        const all = deps.tasks.list(findSession(deps, params.session_id).id).map((t) => t.toObject());
        return { items: query.status ? all.filter((t) => t.status === query.status) : all };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/tasks/{task_id}', operationId: 'getTask', summary: 'Get a task, optionally with the tail of its output', tags,
      params: TaskParams, query: TaskReadQuery, data: TaskObject, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.TASK_NOT_FOUND],
      handler: async ({ params, query }) => {
        const task = taskOf(params);
        const o: Record<string, unknown> = { ...task.toObject() };
        if (query.with_output) {
          const text = await deps.tasks.tail(task, query.output_bytes ?? DEFAULT_OUTPUT_BYTES);
          if (text) Object.assign(o, { output_preview: text, output_bytes: Buffer.byteLength(text) });
        }
        return o as never;
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/tasks/{task_id}:cancel', operationId: 'cancelTask', summary: 'Cancel a running task (TERM to its process group, KILL after the grace period)', tags,
      params: TaskParams, body: EmptyBody, data: TaskCancelData, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.TASK_NOT_FOUND, Codes.TASK_FINISHED],
      handler: ({ params }) => {
        const task = taskOf(params);
        if (task.status !== 'running' || task.stopReason) {
          throw new ApiError(Codes.TASK_FINISHED, `task ${task.spec.id} already finished`, { data: { cancelled: false }, details: { current_status: finalStatus(task) } });
        }
        deps.tasks.cancel(task);
        return { cancelled: true };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/tasks/{task_id}:detach', operationId: 'detachTask', summary: 'Move a running foreground task to the background (no-op otherwise)', tags,
      params: TaskParams, body: EmptyBody, data: TaskDetachData, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.TASK_NOT_FOUND],
      handler: async ({ params }) => {
        const task = taskOf(params);
        const timeoutS = deps.config.current().background.bash_task_timeout_s;
        const detached = await deps.tasks.detach(task, timeoutS * 1000);
        return { detached, status: task.status };
      },
    }),
  ];
}
