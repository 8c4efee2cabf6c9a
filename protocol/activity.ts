/** The v2 list's `activity.status` values (protocol/schemas/sessions-v2.ts `ActivityStatus` is their schema). */
export const ACTIVITY_STATUSES = ['running', 'approval', 'question', 'failed', 'idle'] as const;
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];

/** The work fields a session's activity is read from: the live state (or a work/status frame) and its last main turn's end. */
export interface SessionWork {
  busy?: boolean | null;
  pending_interaction?: string | null;
  last_turn_reason?: string | null;
}

/**
 * The v2 list's `activity.status` (Part B "GET /api/v2/sessions"): an open approval or question first, then busy,
 * then how the last main turn ended. One rule for the list (src/sessions/list/v2-query.ts) and the web UI's badges,
 * which apply it to the broadcast `event.session.status_changed` / `work_changed` frames. No imports: the web UI
 * bundles this module.
 */
export function activityStatusOf(w: SessionWork): ActivityStatus {
  if (w.pending_interaction === 'approval') return 'approval';
  if (w.pending_interaction === 'question') return 'question';
  if (w.busy) return 'running';
  return w.last_turn_reason === 'failed' ? 'failed' : 'idle';
}
