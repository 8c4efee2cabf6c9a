import type { PayloadOf, StepRec, TurnRec } from '../contract.ts';
import { survivors, undoOf, type Undo } from '../undo.ts';
import { agentIdOf, agentState, type AgentState, type Family } from './state.ts';

// Turn records of one agent: turn.* events open and close turns and steps; messages and
// tool calls land in the turn's latest step (tool results are created after the step completed).

function turnStarted(a: AgentState, p: PayloadOf<'turn.started'>): void {
  const turn: TurnRec = {
    turn_id: p.turn_id, agent_id: p.agent_id ?? 'main', prompt_id: p.prompt_id, state: 'running', started_at: p.started_at, model: p.model, steps: [],
  };
  a.turns.push(turn);
  a.byTurn.set(turn.turn_id, turn);
  a.current = turn;
}

function stepStarted(a: AgentState, p: PayloadOf<'turn.step.started'>): void {
  const turn = a.byTurn.get(p.turn_id);
  if (!turn) return;
  // A retried step starts again under the same number: keep one record.
  if (turn.steps.some((s) => s.step === p.step)) return;
  const step: StepRec = { step: p.step, state: 'running', messages: a.early.get(turn.turn_id) ?? [], tool_calls: [] };
  a.early.delete(turn.turn_id);
  turn.steps.push(step);
}

function stepOf(a: AgentState, turnId: string, n: number): StepRec | undefined {
  return a.byTurn.get(turnId)?.steps.find((s) => s.step === n);
}

function turnEnded(a: AgentState, p: PayloadOf<'turn.ended'>): void {
  const turn = a.byTurn.get(p.turn_id);
  if (!turn) return;
  Object.assign(turn, { state: p.reason, reason: p.reason, ended_at: p.ended_at, usage: p.usage });
  for (const s of turn.steps) if (s.state === 'running') s.state = p.reason === 'completed' ? 'completed' : p.reason;
  if (a.current === turn) a.current = undefined;
}

/** A message of a turn: the opening user message, or into the latest step. */
function turnMessage(a: AgentState, p: PayloadOf<'message.created'>): void {
  const turn = (p.turn_id && a.byTurn.get(p.turn_id)) || undefined;
  if (!turn) return;
  const last = turn.steps.at(-1);
  if (last) last.messages.push(p.message);
  else if (!turn.user_message && p.message.role === 'user') turn.user_message = p.message;
  else a.early.set(turn.turn_id, [...(a.early.get(turn.turn_id) ?? []), p.message]);
}

function toolCallStarted(a: AgentState, p: PayloadOf<'tool.call.started'>): void {
  const turn = (p.turn_id && a.byTurn.get(p.turn_id)) || a.current;
  const call = { tool_call_id: p.tool_call_id, tool_name: p.tool_name, input: p.input };
  a.calls.set(p.tool_call_id, { ...call, turn_id: turn?.turn_id });
  const step = turn?.steps.at(-1);
  if (step) step.tool_calls.push(call);
}

function toolResult(a: AgentState, p: PayloadOf<'tool.result'>): void {
  const result = { is_error: p.is_error, content: p.content };
  const rec = a.calls.get(p.tool_call_id);
  if (!rec) return;
  rec.result = result;
  const turn = rec.turn_id ? a.byTurn.get(rec.turn_id) : undefined;
  for (const s of turn?.steps ?? []) for (const c of s.tool_calls) if (c.tool_call_id === p.tool_call_id) c.result = result;
}

/** session.undone: the turns whose opening message was removed leave the transcript. */
function undoTurns(a: AgentState, undo: Undo): void {
  const kept = survivors(a.turns, undo, (t) => t.user_message?.id);
  for (const t of a.turns) if (!kept.includes(t)) a.byTurn.delete(t.turn_id);
  a.turns = kept;
}

/** The turn records of each agent (GET /transcript `items`, `meta`, the roster's `running`). */
export const turns = {
  'turn.started': (s, p) => turnStarted(agentState(s, agentIdOf(p)), p),
  'turn.step.started': (s, p) => stepStarted(agentState(s, agentIdOf(p)), p),
  'turn.step.completed': (s, p) => {
    const step = stepOf(agentState(s, agentIdOf(p)), p.turn_id, p.step);
    if (step) step.state = 'completed';
  },
  'turn.step.interrupted': (s, p) => {
    const step = stepOf(agentState(s, agentIdOf(p)), p.turn_id, p.step);
    if (step) step.state = p.reason;
  },
  'turn.ended': (s, p) => turnEnded(agentState(s, agentIdOf(p)), p),
  'message.created': (s, p) => turnMessage(agentState(s, agentIdOf(p)), p),
  'tool.call.started': (s, p) => toolCallStarted(agentState(s, agentIdOf(p)), p),
  'tool.result': (s, p) => toolResult(agentState(s, agentIdOf(p)), p),
  'session.undone': (s, p) => {
    const undo = undoOf(p);
    undoTurns(agentState(s, undo.agentId), undo);
  },
} satisfies Family;
