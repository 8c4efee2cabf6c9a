import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { Instances } from '../app/instances.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound } from '../../protocol/errors.ts';
import type { LiveSessions } from './live.ts';

/** The read models a session lookup consults. */
export interface SessionLookup {
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
}

/** A lookup that also names the daemon serving a session held by another instance. */
export interface OwnedSessionLookup extends SessionLookup {
  instances: Pick<Instances, 'baseUrlOf'>;
}

/** A session whose workspace resolves; 40401 otherwise. */
export function findSession(deps: SessionLookup, id: string): SessionRecord {
  const s = deps.sessions.get(id);
  if (!s || !deps.workspaces.get(s.workspace_id)) throw notFound(Codes.SESSION_NOT_FOUND, 'session', id);
  return s;
}

/**
 * A session this process may change: not held by another daemon on the same
 * home (its journal lives in that daemon's locked database).
 */
export function findOwnedSession(deps: OwnedSessionLookup, id: string): SessionRecord {
  const s = findSession(deps, id);
  if (s.foreign) {
    throw new ApiError(Codes.SESSION_BUSY, 'session is held by another svc-code instance on this home; use that instance', {
      details: { reason: 'held_by_other_instance', session_id: id, server_id: s.foreign.server_id ?? null, base_url: deps.instances.baseUrlOf(s.foreign.server_id) },
    });
  }
  return s;
}

export function ensureNotBusy(deps: { live: LiveSessions }, id: string): void {
  if (deps.live.isBusy(id)) throw new ApiError(Codes.SESSION_BUSY, 'session busy: an agent has an active turn', { details: { session_id: id } });
}
