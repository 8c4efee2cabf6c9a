import * as v from 'valibot';
import { Id, QueryBool, queryInt } from './common.ts';

export const TaskStatus = v.picklist(['running', 'completed', 'failed', 'cancelled'], 'must be running, completed, failed or cancelled');

/** Core "Task object": bash and subagent tasks. */
export const TaskObject = v.object({
  id: v.pipe(v.string(), v.description('`task_<ULID>`')),
  session_id: v.string(),
  kind: v.picklist(['bash', 'subagent', 'tool']),
  description: v.string(),
  status: TaskStatus,
  run_in_background: v.pipe(v.boolean(), v.description('true once the task runs in the background (started so, or moved there); clients require it')),
  created_at: v.string(),
  started_at: v.optional(v.string()),
  completed_at: v.optional(v.string()),
  command: v.optional(v.pipe(v.string(), v.description('bash tasks'))),
  model: v.optional(v.pipe(v.string(), v.description('subagent tasks: the model alias bound to the subagent'))),
  thinking_effort: v.optional(v.pipe(v.string(), v.description('subagent tasks: effort bound (`off` when thinking is off)'))),
  agent_id: v.optional(v.pipe(v.string(), v.description('subagent tasks: the agent id its events carry'))),
  subagent_type: v.optional(v.string()),
  parent_tool_call_id: v.optional(v.pipe(v.string(), v.description('the tool call that started it: the Agent call of a subagent task, the Bash call of a bash task'))),
  output_preview: v.optional(v.pipe(v.string(), v.description('tail of the output, non-empty only: GET with with_output; a bash task\'s task.terminated (its last 4096 bytes)'))),
  output_bytes: v.optional(v.pipe(v.number(), v.description('byte length of output_preview'))),
});

export const TaskListQuery = v.object({ status: v.optional(TaskStatus) });
export const TaskListData = v.object({ items: v.array(TaskObject) });
export const TaskParams = v.object({ session_id: Id, task_id: Id });
export const TaskReadQuery = v.object({
  with_output: v.optional(QueryBool),
  output_bytes: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER)),
});
export const TaskCancelData = v.object({ cancelled: v.boolean() });
export const TaskDetachData = v.object({ detached: v.boolean(), status: TaskStatus });
