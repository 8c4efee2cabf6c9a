import * as v from 'valibot';
import { TODO_STATUSES, type TodoItem, type TodoUpdatedPayload } from '../../protocol/events/todos.ts';
import { defineTool, type ToolDef } from './types.ts';

const Todo = v.object({
  content: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty')),
  status: v.picklist(TODO_STATUSES, `must be one of ${TODO_STATUSES.join(', ')}`),
  activeForm: v.optional(v.string()),
  id: v.optional(v.pipe(v.string(), v.minLength(1))),
});

const Input = v.object({ todos: v.array(Todo) });

/**
 * The agent's todo list (the shape models are trained on: the whole list each call).
 * Journaled as `todo.updated` so clients show the live list; read-only (never asks approval).
 */
export const todoWriteTool = defineTool({
  name: 'TodoWrite',
  description: 'Create and update your todo list for the current task (send the whole list each time). Use it for multi-step work: '
    + 'break the task into items, keep exactly one item in_progress while you work on it, and mark items completed as soon as they are done.',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    const todos: TodoItem[] = input.todos.map((t, i) => ({
      id: t.id ?? `todo_${i}`, content: t.content, status: t.status, ...(t.activeForm !== undefined ? { activeForm: t.activeForm } : {}),
    }));
    const payload: TodoUpdatedPayload = {
      agent_id: ctx.agentId, ...(ctx.turnId ? { turn_id: ctx.turnId } : {}), tool_call_id: ctx.toolCallId ?? '', todos,
    };
    await ctx.deps.journal.append([{ stream: ctx.session.id, type: 'todo.updated', payload: { ...payload } }]);
    return summary(todos);
  },
});

/** What the model reads back: the counts and the item in progress. */
function summary(todos: TodoItem[]): string {
  if (!todos.length) return 'Todo list cleared.';
  const count = (s: TodoItem['status']) => todos.filter((t) => t.status === s).length;
  const current = todos.find((t) => t.status === 'in_progress');
  const lines = [
    `Todo list updated: ${todos.length} item(s), ${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending.`,
  ];
  if (current) lines.push(`In progress: ${current.content}`);
  else if (count('pending')) lines.push('No item is in progress: mark the next one in_progress when you start it.');
  else lines.push('All items are completed.');
  lines.push('Keep the list up to date as you work.');
  return lines.join('\n');
}

export const todoTools: ToolDef[] = [todoWriteTool];
