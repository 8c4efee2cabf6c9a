import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { SessionStatus, StatusChangedPayload, WorkChangedPayload } from '../../protocol/events/session.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import type { EventJournal } from '../events/journal.ts';
import type { LiveSessions } from './live.ts';

type Interaction = 'approval' | 'question';

/** The live state and the index a session's status is read from. */
export interface LiveStatus {
  live: LiveSessions;
  sessions: SessionIndex;
}

/**
 * Records whether a session waits on the user for `kind` (`pending` = items of
 * that kind are open). Clearing one kind never clears the other.
 */
export function setPendingInteraction(deps: { live: LiveSessions }, sessionId: string, kind: Interaction, pending: boolean): void {
  const prev = deps.live.get(sessionId) ?? { busy: false, main_turn_active: false, pending_interaction: 'none' as const, model: null };
  const pending_interaction = pending ? kind : prev.pending_interaction === kind ? 'none' : prev.pending_interaction;
  deps.live.set(sessionId, { ...prev, pending_interaction });
}

type LastTurnReason = 'completed' | 'cancelled' | 'failed';

/** The fields work_changed and status_changed share: the live state, and how the last main turn ended. */
function workFields(deps: LiveStatus, sessionId: string, lastTurnReason?: LastTurnReason) {
  const st = deps.live.get(sessionId);
  const rec = deps.sessions.get(sessionId);
  const reason = lastTurnReason ?? rec?.last_turn_reason;
  return {
    session_id: sessionId, workspace_id: rec?.workspace_id ?? '',
    busy: st?.busy ?? false, main_turn_active: st?.main_turn_active ?? false, pending_interaction: st?.pending_interaction ?? 'none',
    ...(reason ? { last_turn_reason: reason } : {}),
  } satisfies WorkChangedPayload;
}

/**
 * The status clients read (spec/clients.md E6): an open interaction first, then busy; idle right after a main
 * turn the user cancelled is `aborted` (`ended`: how the turn ending in the same batch ended).
 */
function statusOf(w: WorkChangedPayload, ended?: LastTurnReason): SessionStatus {
  if (w.pending_interaction === 'approval') return 'awaiting_approval';
  if (w.pending_interaction === 'question') return 'awaiting_question';
  if (w.busy) return 'running';
  return ended === 'cancelled' ? 'aborted' : 'idle';
}

/**
 * `event.session.status_changed` carrying the session's current live state, on the session's own
 * stream (broadcast to every connection with the session's seq and epoch, spec/clients.md E5).
 */
export function statusChangedEvent(deps: LiveStatus, sessionId: string, lastTurnReason?: LastTurnReason): NewStreamEvent {
  const work = workFields(deps, sessionId, lastTurnReason);
  const status = statusOf(work, lastTurnReason);
  // No status journaled since the daemon started: the session was idle (no turn or interaction outlives a restart).
  const previous = deps.live.swapStatus(sessionId, status) ?? 'idle';
  const payload: StatusChangedPayload = { ...work, status, previous_status: previous };
  return { stream: sessionId, type: 'event.session.status_changed', payload };
}

/** `work_changed` + `status_changed` describing the session's current live state (`lastTurnReason`: a main turn ending in the same batch). */
export function workChangedEvents(deps: LiveStatus, sessionId: string, lastTurnReason?: LastTurnReason): NewStreamEvent[] {
  const payload = workFields(deps, sessionId, lastTurnReason);
  return [{ stream: sessionId, type: 'event.session.work_changed', payload }, statusChangedEvent(deps, sessionId, lastTurnReason)];
}

/**
 * Background work of a session (a background task, a non-main agent's turn) starts or
 * ends; when that flips the session's `busy`, the change is journaled like a turn's.
 */
export async function trackWork(deps: LiveStatus & { journal: EventJournal }, sessionId: string, key: string, on: boolean): Promise<void> {
  if (!deps.live.setWork(sessionId, key, on)) return;
  await deps.journal.append(workChangedEvents(deps, sessionId));
}
