import type { MessageCreatedPayload, StepCompletedPayload, StepInterruptedPayload, StepStartedPayload, TurnEndedPayload, TurnStartedPayload } from '../events/turns.ts';
import type { StepRec, TurnRec } from '../protocol/schemas/transcript.ts';
import type { AgentState } from './state.ts';

// Turn records of one agent: turn.* events open and close turns and steps; messages and
// tool calls land in the turn's latest step (tool results are created after the step completed).

export function turnStarted(a: AgentState, p: TurnStartedPayload): void {
  const turn: TurnRec = {
    turn_id: p.turn_id, agent_id: p.agent_id ?? 'main', prompt_id: p.prompt_id, state: 'running', started_at: p.started_at, model: p.model, steps: [],
  };
  a.turns.push(turn);
  a.byTurn.set(turn.turn_id, turn);
  a.current = turn;
}

export function stepStarted(a: AgentState, p: StepStartedPayload): void {
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

export function stepCompleted(a: AgentState, p: StepCompletedPayload): void {
  const step = stepOf(a, p.turn_id, p.step);
  if (step) step.state = 'completed';
}

export function stepInterrupted(a: AgentState, p: StepInterruptedPayload): void {
  const step = stepOf(a, p.turn_id, p.step);
  if (step) step.state = p.reason;
}

export function turnEnded(a: AgentState, p: TurnEndedPayload): void {
  const turn = a.byTurn.get(p.turn_id);
  if (!turn) return;
  Object.assign(turn, { state: p.reason, reason: p.reason, ended_at: p.ended_at, usage: p.usage });
  for (const s of turn.steps) if (s.state === 'running') s.state = p.reason === 'completed' ? 'completed' : p.reason;
  if (a.current === turn) a.current = undefined;
}

/** A message of a turn: the opening user message, or into the latest step. */
export function turnMessage(a: AgentState, p: MessageCreatedPayload): void {
  const turn = (p.turn_id && a.byTurn.get(p.turn_id)) || undefined;
  if (!turn) return;
  const last = turn.steps.at(-1);
  if (last) last.messages.push(p.message);
  else if (!turn.user_message && p.message.role === 'user') turn.user_message = p.message;
  else a.early.set(turn.turn_id, [...(a.early.get(turn.turn_id) ?? []), p.message]);
}

export function toolCallStarted(a: AgentState, p: { turn_id?: string; tool_call_id: string; tool_name: string; input: unknown }): void {
  const turn = (p.turn_id && a.byTurn.get(p.turn_id)) || a.current;
  const call = { tool_call_id: p.tool_call_id, tool_name: p.tool_name, input: p.input };
  a.calls.set(p.tool_call_id, { ...call, turn_id: turn?.turn_id });
  const step = turn?.steps.at(-1);
  if (step) step.tool_calls.push(call);
}

export function toolResult(a: AgentState, p: { tool_call_id: string; is_error: boolean; content: string }): void {
  const result = { is_error: p.is_error, content: p.content };
  const rec = a.calls.get(p.tool_call_id);
  if (!rec) return;
  rec.result = result;
  const turn = rec.turn_id ? a.byTurn.get(rec.turn_id) : undefined;
  for (const s of turn?.steps ?? []) for (const c of s.tool_calls) if (c.tool_call_id === p.tool_call_id) c.result = result;
}

/** session.undone: the turns whose opening message was removed leave the transcript. */
export function undoTurns(a: AgentState, messageIds: string[]): void {
  const gone = new Set(messageIds);
  const kept = a.turns.filter((t) => !(t.user_message && gone.has(t.user_message.id)));
  for (const t of a.turns) if (!kept.includes(t)) a.byTurn.delete(t.turn_id);
  a.turns = kept;
  a.users = a.users.filter((u) => !gone.has(u.message_id));
}
