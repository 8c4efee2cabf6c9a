import * as v from 'valibot';
import type { EventDoc } from '../ws/event-payloads.ts';

/** Journaled event types of the todo and plan-mode tools. */
export const TodoEvents = {
  updated: 'todo.updated',
} as const;

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;

/** One entry of the agent's todo list (ids `todo_0`.. when the model gave none). */
export interface TodoItem {
  id: string;
  content: string;
  status: (typeof TODO_STATUSES)[number];
  activeForm?: string;
}

export interface TodoUpdatedPayload {
  agent_id: string;
  turn_id?: string;
  tool_call_id: string;
  todos: TodoItem[];
}

const TodoItemSchema = v.object({
  id: v.string(), content: v.string(), status: v.picklist(TODO_STATUSES),
  activeForm: v.optional(v.pipe(v.string(), v.description('present-tense form shown while the item is in progress'))),
});

/** Journaled events of the todo / plan tools on a session stream, for /asyncapi.json (docs/plan-mode.md). */
export const TODO_SESSION_EVENT_DOCS: EventDoc[] = [{
  type: TodoEvents.updated,
  summary: 'The agent replaced its todo list (TodoWrite; the whole list each time, the latest event is the current list)',
  payload: v.object({
    agent_id: v.pipe(v.string(), v.description('`main` for the main agent')), turn_id: v.optional(v.string()), tool_call_id: v.string(),
    todos: v.array(TodoItemSchema),
  }),
}];
