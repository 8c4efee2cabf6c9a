import { agentIdOf, agentState, type Family } from './state.ts';

/** The agent's todo list (the latest `todo.updated`) and how many times its context was compacted (`meta.compactions`). */
export const progress = {
  'todo.updated': (s, p) => {
    agentState(s, agentIdOf(p)).todos = p.todos;
  },
  'compaction.completed': (s, p) => {
    agentState(s, agentIdOf(p)).compactions += 1;
  },
} satisfies Family;
