import type { Family } from './state.ts';

/** The agents of the session: `main` and every spawned subagent (GET /transcript `agents`). */
export const roster = {
  'session.created': (s, _p, e) => {
    const main = s.roster.get('main');
    if (main) main.created_at = e.ts;
  },
  'subagent.spawned': (s, x, e) => void s.roster.set(x.agent_id, {
    agent_id: x.agent_id, kind: x.kind, state: 'idle', parent_agent_id: x.parent_agent_id, description: x.description, subagent_type: x.subagent_type,
    model: x.model, ...(x.parent_tool_call_id ? { parent_tool_call_id: x.parent_tool_call_id } : {}), ...(x.task_id ? { task_id: x.task_id } : {}),
    created_at: e.ts,
  }),
  'subagent.completed': (s, p, e) => {
    const rec = s.roster.get(p?.agent_id);
    if (rec) Object.assign(rec, { state: 'completed', disposed_at: e.ts });
  },
  'subagent.failed': (s, p, e) => {
    const rec = s.roster.get(p?.agent_id);
    if (rec) Object.assign(rec, { state: 'failed', disposed_at: e.ts });
  },
} satisfies Family;
