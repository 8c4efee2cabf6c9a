import { messageChars } from '../../projections/usage/estimate.ts';
import { undoOf } from '../../projections/undo.ts';
import type { SessionUndonePayload } from '../../protocol/events/compaction.ts';
import type { Message, MessageCreatedPayload } from '../../protocol/events/turns.ts';
import { known } from '../../protocol/events/known.ts';

/**
 * `:undo`: which messages the last `count` turns are. An undo point is a user prompt (a user
 * message with a prompt_id; not a compaction summary nor a task notification); undoing a turn
 * removes its prompt and every message after it. Only the context since the last compaction
 * can be undone.
 */
export type UndoPlan =
  | { ok: true; count: number; messageIds: string[]; remaining: Message[] }
  | { ok: false; reason: 'no_turns' | 'too_far'; undoableCount: number };

// A follow-up turn's prompt (task notes) is no undo point: undoing the user's last turn also takes the follow-ups after it.
const isPrompt = (m: Message) => m.role === 'user' && Boolean(m.prompt_id) && !m.metadata?.compaction && !m.metadata?.task_notification;

export function planUndo(history: readonly Message[], count: number): UndoPlan {
  const points = history.flatMap((m, i) => (isPrompt(m) ? [i] : []));
  if (!points.length) return { ok: false, reason: 'no_turns', undoableCount: 0 };
  if (count > points.length) return { ok: false, reason: 'too_far', undoableCount: points.length };
  const cut = points[points.length - count]!;
  return { ok: true, count, messageIds: history.slice(cut).map((m) => m.id), remaining: history.slice(0, cut) };
}

/** The `session.undone` payload of a plan; `events` is the session journal, for the last prompt left in the transcript. */
export function undonePayload(plan: Extract<UndoPlan, { ok: true }>, events: Array<{ type: string; payload: any }>): SessionUndonePayload {
  return {
    agent_id: 'main', count: plan.count, message_ids: plan.messageIds,
    last_prompt: lastPrompt(events, new Set(plan.messageIds)),
    context_chars: plan.remaining.reduce((n, m) => n + messageChars(m), 0),
  };
}

/** Text of the newest main-agent prompt not undone (before or after compactions: the transcript's, as GET /messages shows it). */
function lastPrompt(events: Array<{ type: string; payload: any }>, undoing: Set<string>): string | null {
  const gone = new Set(undoing);
  for (const e of events) {
    if (known(e).type !== 'session.undone') continue;
    const undo = undoOf(e.payload as SessionUndonePayload);
    if (undo.agentId === 'main') for (const id of undo.messageIds) gone.add(id);
  }
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (known(e).type !== 'message.created' || (e.payload?.agent_id ?? 'main') !== 'main') continue;
    const m = (e.payload as MessageCreatedPayload).message;
    if (isPrompt(m) && !gone.has(m.id)) return promptText(m);
  }
  return null;
}

/** Same text as the session index keeps from `prompt.accepted`. */
function promptText(m: Message): string {
  return m.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}
