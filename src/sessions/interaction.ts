import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import { EngineEvents } from '../engine/events.ts';
import type { StatusChangedPayload } from '../../protocol/events/session.ts';
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

/** `event.session.status_changed` carrying the session's current live state. */
export function statusChangedEvent(deps: LiveStatus, sessionId: string): NewStreamEvent {
  const st = deps.live.get(sessionId);
  const payload: StatusChangedPayload = {
    session_id: sessionId, workspace_id: deps.sessions.get(sessionId)?.workspace_id ?? '',
    busy: st?.busy ?? false, main_turn_active: st?.main_turn_active ?? false, pending_interaction: st?.pending_interaction ?? 'none',
  };
  return { stream: GLOBAL_STREAM, type: EngineEvents.statusChanged, payload };
}

/** `work_changed` + `status_changed` describing the session's current live state. */
export function workChangedEvents(deps: LiveStatus, sessionId: string): NewStreamEvent[] {
  const st = deps.live.get(sessionId);
  const payload = {
    session_id: sessionId, workspace_id: deps.sessions.get(sessionId)?.workspace_id ?? '',
    busy: st?.busy ?? false, main_turn_active: st?.main_turn_active ?? false,
  };
  return [{ stream: GLOBAL_STREAM, type: EngineEvents.workChanged, payload }, statusChangedEvent(deps, sessionId)];
}

/**
 * Background work of a session (a background task, a non-main agent's turn) starts or
 * ends; when that flips the session's `busy`, the change is journaled like a turn's.
 */
export async function trackWork(deps: LiveStatus & { journal: EventJournal }, sessionId: string, key: string, on: boolean): Promise<void> {
  if (!deps.live.setWork(sessionId, key, on)) return;
  await deps.journal.append(workChangedEvents(deps, sessionId));
}
