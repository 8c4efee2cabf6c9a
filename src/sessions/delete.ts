import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { sessionMessageRanges } from '../../projections/messages/message-log.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import { GlobalEvents } from '../../protocol/events/types.ts';
import type { EngineRegistry } from '../engine/runtime-registry.ts';
import type { EventJournal } from '../events/journal.ts';
import type { TerminalService } from '../terminals/service.ts';
import type { LiveSessions } from './live.ts';
import { findOwnedSession, type OwnedSessionLookup } from './lookup.ts';

/** What deleting a session touches: its runtime, its terminals, its journal stream and projection records. */
export type DeleteSessionDeps = OwnedSessionLookup & {
  journal: EventJournal;
  live: LiveSessions;
  engine: Pick<EngineRegistry, 'unload'>;
  terminals: Pick<TerminalService, 'closeSession'>;
};

/**
 * POST /sessions/{id}:delete (spec/clients.md D1, E16): refused while the session is busy (40901);
 * otherwise its runtime is unloaded, its terminals closed, and in one journal batch its stream and
 * message records are removed and `event.session.deleted` is appended on the global stream (every
 * projection drops the session there). Other sessions are not touched; a child keeps its `parent_id`.
 */
export async function deleteSession(deps: DeleteSessionDeps, id: string): Promise<void> {
  const s = findOwnedSession(deps, id);
  if (deps.live.isBusy(id)) throw new ApiError(Codes.SESSION_BUSY, 'session busy: an agent has an active turn or task', { details: { session_id: id } });
  await deps.engine.unload(id);
  await deps.terminals.closeSession(id, 'request');
  await deps.journal.removeStream(id, [
    { stream: GLOBAL_STREAM, type: GlobalEvents.sessionDeleted, payload: { session_id: id, sessionId: id, workspace_id: s.workspace_id } },
  ], sessionMessageRanges(id));
}
