import type { EventType } from '../../protocol/events/registry.ts';

/** Journaled event types of the todo and plan-mode tools (schemas: protocol/events/todos.ts). */
export const TodoEvents = {
  updated: 'todo.updated',
} as const satisfies Record<string, EventType>;
