import type { InteractionRec } from '../contract.ts';
import { agentIdOf, agentState, type Family, type TranscriptState } from './state.ts';

/** A resolved / answered / dismissed interaction keeps its request and gets the resolving payload. */
function resolve(s: TranscriptState, p: { agent_id?: string } & Record<string, unknown>, id: string, state: InteractionRec['state']): void {
  const it = agentState(s, agentIdOf(p)).interactions.get(id);
  if (it) Object.assign(it, { state, resolution: p });
}

/** The approvals and questions of each agent (GET /transcript `interactions`, `pending_interactions`, plan reviews). */
export const interactions = {
  'event.approval.requested': (s, p) => void agentState(s, agentIdOf(p)).interactions.set(p.approval_id, {
    kind: 'approval', id: p.approval_id, tool_call_id: p.tool_call_id, ...(p.turn_id ? { turn_id: p.turn_id } : {}), state: 'pending', request: p,
  }),
  'event.approval.resolved': (s, p) => resolve(s, p, p.approval_id, p.decision),
  'event.question.requested': (s, p) => void agentState(s, agentIdOf(p)).interactions.set(p.question_id, {
    kind: 'question', id: p.question_id, tool_call_id: p.tool_call_id, ...(p.turn_id ? { turn_id: p.turn_id } : {}), state: 'pending', request: p,
  }),
  'event.question.answered': (s, p) => resolve(s, p, p.question_id, 'answered'),
  'event.question.dismissed': (s, p) => resolve(s, p, p.question_id, 'dismissed'),
} satisfies Family;
