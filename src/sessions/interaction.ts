import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { AppContext } from '../app/context.ts';
import { EngineEvents } from '../engine/events.ts';
import type { StatusChangedPayload } from '../events/session.ts';
import type { NewStreamEvent } from '../events/registry.ts';

type Interaction = 'approval' | 'question';

/**
 * Records whether a session waits on the user for `kind` (`pending` = items of
 * that kind are open). Clearing one kind never clears the other.
 */
export function setPendingInteraction(app: AppContext, sessionId: string, kind: Interaction, pending: boolean): void {
  const prev = app.live.get(sessionId) ?? { busy: false, main_turn_active: false, pending_interaction: 'none' as const, model: null };
  const pending_interaction = pending ? kind : prev.pending_interaction === kind ? 'none' : prev.pending_interaction;
  app.live.set(sessionId, { ...prev, pending_interaction });
}

/** `event.session.status_changed` carrying the session's current live state. */
export function statusChangedEvent(app: AppContext, sessionId: string): NewStreamEvent {
  const st = app.live.get(sessionId);
  const payload: StatusChangedPayload = {
    session_id: sessionId, workspace_id: app.sessions.get(sessionId)?.workspace_id ?? '',
    busy: st?.busy ?? false, main_turn_active: st?.main_turn_active ?? false, pending_interaction: st?.pending_interaction ?? 'none',
  };
  return { stream: GLOBAL_STREAM, type: EngineEvents.statusChanged, payload };
}

/** `work_changed` + `status_changed` describing the session's current live state. */
export function workChangedEvents(app: AppContext, sessionId: string): NewStreamEvent[] {
  const st = app.live.get(sessionId);
  const payload = {
    session_id: sessionId, workspace_id: app.sessions.get(sessionId)?.workspace_id ?? '',
    busy: st?.busy ?? false, main_turn_active: st?.main_turn_active ?? false,
  };
  return [{ stream: GLOBAL_STREAM, type: EngineEvents.workChanged, payload }, statusChangedEvent(app, sessionId)];
}

/**
 * Background work of a session (a background task, a non-main agent's turn) starts or
 * ends; when that flips the session's `busy`, the change is journaled like a turn's.
 */
export async function trackWork(app: AppContext, sessionId: string, key: string, on: boolean): Promise<void> {
  if (!app.live.setWork(sessionId, key, on)) return;
  await app.journal.append(workChangedEvents(app, sessionId));
}
