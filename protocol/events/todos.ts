import * as v from 'valibot';
import { defineEvent, type PayloadOfDef } from './define.ts';

/** The agent's todo list (TodoWrite; docs/plan-mode.md), on the session's stream. */

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;

/** One entry of the agent's todo list (ids `todo_0`.. when the model gave none). */
export const TodoItem = v.object({
  id: v.string(), content: v.string(), status: v.picklist(TODO_STATUSES),
  activeForm: v.optional(v.pipe(v.string(), v.description('present-tense form shown while the item is in progress'))),
});
export type TodoItem = v.InferOutput<typeof TodoItem>;

const updated = defineEvent({
  type: 'todo.updated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The agent replaced its todo list (TodoWrite; the whole list each time, the latest event is the current list)',
  payload: v.object({
    agent_id: v.pipe(v.string(), v.description('`main` for the main agent')), turn_id: v.optional(v.string()), tool_call_id: v.string(),
    todos: v.array(TodoItem),
  }),
});

export const TODO_EVENTS = [updated] as const;

export type TodoUpdatedPayload = PayloadOfDef<typeof updated>;
