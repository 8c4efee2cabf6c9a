import type { SubagentSpawnedPayload } from '../events/subagents.ts';
import type { ApprovalResolvedPayload } from '../events/approvals.ts';
import type { InteractionRec, TaskRec } from '../protocol/schemas/transcript.ts';
import * as turns from './fold-turns.ts';
import * as users from './fold-users.ts';
import { agentState, type AgentState, type TranscriptState } from './state.ts';

/** A journal event as the fold sees it. */
export interface FoldEvent { type: string; ts: string; payload: any }

type AgentHandler = (a: AgentState, p: any, e: FoldEvent) => void;

const resolve = (state: InteractionRec['state']): AgentHandler => (a, p) => {
  const it = a.interactions.get(p.approval_id ?? p.question_id);
  if (it) Object.assign(it, { state, resolution: p });
};

/** Per-agent events (payload.agent_id, `main` when absent). */
const AGENT: Record<string, AgentHandler> = {
  'turn.started': (a, p) => { turns.turnStarted(a, p); users.promptsStarted(a, p); },
  'turn.step.started': turns.stepStarted,
  'turn.step.completed': turns.stepCompleted,
  'turn.step.interrupted': turns.stepInterrupted,
  'turn.ended': turns.turnEnded,
  'message.created': (a, p) => { turns.turnMessage(a, p); users.userMessage(a, p); },
  'tool.call.started': turns.toolCallStarted,
  'tool.result': turns.toolResult,
  'prompt.accepted': users.promptAccepted,
  'prompt.steered': (a, p, e) => users.promptsSteered(a, p, e.ts),
  'prompt.aborted': users.promptAborted,
  'todo.updated': (a, p) => { a.todos = p.todos; },
  'compaction.completed': (a) => { a.compactions += 1; },
  'session.undone': (a, p) => turns.undoTurns(a, p.message_ids ?? []),
  'event.approval.requested': (a, p) => a.interactions.set(p.approval_id, {
    kind: 'approval', id: p.approval_id, tool_call_id: p.tool_call_id, ...(p.turn_id ? { turn_id: p.turn_id } : {}), state: 'pending', request: p,
  }),
  'event.approval.resolved': (a, p: ApprovalResolvedPayload, e) => resolve(p.decision)(a, p, e),
  'event.question.requested': (a, p) => a.interactions.set(p.question_id, {
    kind: 'question', id: p.question_id, tool_call_id: p.tool_call_id, ...(p.turn_id ? { turn_id: p.turn_id } : {}), state: 'pending', request: p,
  }),
  'event.question.answered': resolve('answered'),
  'event.question.dismissed': resolve('dismissed'),
};

function rosterEvent(s: TranscriptState, e: FoldEvent): void {
  const p = e.payload;
  if (e.type === 'subagent.spawned') {
    const x = p as SubagentSpawnedPayload;
    s.roster.set(x.agent_id, {
      agent_id: x.agent_id, kind: x.kind, state: 'idle', parent_agent_id: x.parent_agent_id, description: x.description, subagent_type: x.subagent_type,
      model: x.model, ...(x.parent_tool_call_id ? { parent_tool_call_id: x.parent_tool_call_id } : {}), ...(x.task_id ? { task_id: x.task_id } : {}),
    });
    return;
  }
  const rec = s.roster.get(p?.agent_id);
  if (!rec) return;
  if (e.type === 'subagent.completed') rec.state = 'completed';
  else if (e.type === 'subagent.failed') rec.state = 'failed';
}

/** Folds one journal event into the transcript state (pure over the events: no engine memory). */
export function foldEvent(s: TranscriptState, e: FoldEvent): void {
  const p = e.payload;
  if (e.type === 'task.started' || e.type === 'task.terminated') {
    const task = p?.task as TaskRec | undefined;
    if (task) s.tasks.set(task.id, task);
    return;
  }
  if (e.type.startsWith('subagent.')) return rosterEvent(s, e);
  if (e.type === 'skill.activated' && p?.prompt_id) s.skillPrompts.add(p.prompt_id);
  const handler = AGENT[e.type];
  if (handler) handler(agentState(s, p?.agent_id ?? 'main'), p, e);
}
