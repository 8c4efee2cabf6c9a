import { rm } from 'node:fs/promises';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { sessionMessageRanges } from '../../projections/messages/message-log.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { EngineRegistry } from '../engine/runtime-registry.ts';
import type { EventJournal } from '../events/journal.ts';
import type { TerminalService } from '../terminals/service.ts';
import type { LiveSessions } from './live.ts';
import { logFailure, type Logger } from '../lib/logger.ts';
import { sessionMediaDir } from '../media/session-media.ts';
import { taskLogDir } from '../tasks/service.ts';
import type { ReadStamps } from '../tools/read-stamps.ts';
import { toolResultsDir } from '../tools/tool-results.ts';
import { findOwnedSession, type OwnedSessionLookup } from './lookup.ts';

/** What deleting a session touches: its runtime, its terminals, its journal stream and projection records. */
export type DeleteSessionDeps = OwnedSessionLookup & {
  home: string;
  log: Logger;
  stamps: Pick<ReadStamps, 'forget'>;
  journal: EventJournal;
  live: LiveSessions;
  engine: Pick<EngineRegistry, 'unload'>;
  terminals: Pick<TerminalService, 'closeSession'>;
};

/**
 * POST /sessions/{id}:delete (spec/clients.md D1, E16): refused while the session is busy (40901);
 * otherwise its runtime is unloaded, its terminals closed, and in one journal batch its stream and
 * message records are removed and `event.session.deleted` is appended on the global stream (every
 * projection drops the session there; its file history is folded from that stream). Then its files go:
 * session media, task logs and saved tool outputs (a failure there is logged; the session is gone
 * already). Uploads are not the session's (any session may reference one by id) and stay. Other
 * sessions are not touched; a child keeps its `parent_id`.
 */
export async function deleteSession(deps: DeleteSessionDeps, id: string): Promise<void> {
  const s = findOwnedSession(deps, id);
  if (deps.live.isBusy(id)) throw new ApiError(Codes.SESSION_BUSY, 'session busy: an agent has an active turn or task', { details: { session_id: id } });
  await deps.engine.unload(id);
  await deps.terminals.closeSession(id, 'request');
  await deps.journal.removeStream(id, [
    { stream: GLOBAL_STREAM, type: 'event.session.deleted', payload: { session_id: id, sessionId: id, workspace_id: s.workspace_id } },
  ], sessionMessageRanges(id));
  deps.stamps.forget(id);
  await removeSessionFiles(deps, id);
}

/** The session's own folders under the home (docs/sessions.md "Deleting a session"). */
async function removeSessionFiles(deps: Pick<DeleteSessionDeps, 'home' | 'log'>, id: string): Promise<void> {
  const dirs = [sessionMediaDir(deps.home, id), taskLogDir(deps.home, id), toolResultsDir(deps.home, id)];
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }).catch(logFailure(deps.log, 'removing a deleted session\'s files', { session_id: id, dir }))));
}
