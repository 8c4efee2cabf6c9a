import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { AppContext } from '../app/context.ts';
import { Codes } from '../protocol/codes.ts';
import { ApiError, notFound } from '../protocol/errors.ts';

/** A session whose workspace resolves; 40401 otherwise. */
export function findSession(app: AppContext, id: string): SessionRecord {
  const s = app.sessions.get(id);
  if (!s || !app.workspaces.get(s.workspace_id)) throw notFound(Codes.SESSION_NOT_FOUND, 'session', id);
  return s;
}

/**
 * A session this process may change: not held by another daemon on the same
 * home (its journal lives in that daemon's locked database).
 */
export function findOwnedSession(app: AppContext, id: string): SessionRecord {
  const s = findSession(app, id);
  if (s.foreign) {
    throw new ApiError(Codes.SESSION_BUSY, 'session is held by another svc-code instance on this home; use that instance', {
      details: { reason: 'held_by_other_instance', session_id: id, server_id: s.foreign.server_id ?? null, base_url: app.instances.baseUrlOf(s.foreign.server_id) },
    });
  }
  return s;
}

export function ensureNotBusy(app: AppContext, id: string): void {
  if (app.live.isBusy(id)) throw new ApiError(Codes.SESSION_BUSY, 'session busy: an agent has an active turn', { details: { session_id: id } });
}
