import type { Family } from './state.ts';

/** The agents of the session: `main` and every spawned subagent (GET /transcript `agents`). */
export const roster = {
  'subagent.spawned': (s, x) => void s.roster.set(x.agent_id, {
    agent_id: x.agent_id, kind: x.kind, state: 'idle', parent_agent_id: x.parent_agent_id, description: x.description, subagent_type: x.subagent_type,
    model: x.model, ...(x.parent_tool_call_id ? { parent_tool_call_id: x.parent_tool_call_id } : {}), ...(x.task_id ? { task_id: x.task_id } : {}),
  }),
  'subagent.completed': (s, p) => {
    const rec = s.roster.get(p?.agent_id);
    if (rec) rec.state = 'completed';
  },
  'subagent.failed': (s, p) => {
    const rec = s.roster.get(p?.agent_id);
    if (rec) rec.state = 'failed';
  },
} satisfies Family;
