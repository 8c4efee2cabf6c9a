import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { EventJournal } from '../events/journal.ts';
import { sessionStatus, type SessionInfoDeps } from '../sessions/info.ts';
import { ensureNotBusy, findOwnedSession, findSession, type OwnedSessionLookup } from '../sessions/lookup.ts';
import { loadMessages } from './history.ts';
import type { EngineRegistry } from './runtime-registry.ts';

/**
 * POST :undo: removes the last `count` turns of the main agent (docs/compaction-undo.md).
 * data: the remaining context messages newest first (one page) and the status rollup.
 */
export async function undoTurns(deps: OwnedSessionLookup & SessionInfoDeps & { engine: Pick<EngineRegistry, 'runtime'>; journal: EventJournal }, sessionId: string, count: number, pageSize: number) {
  const session = findOwnedSession(deps, sessionId);
  ensureNotBusy(deps, sessionId);
  const rt = await deps.engine.runtime(session);
  // Read before the busy check: from the check to the history change nothing is awaited.
  const { events } = await loadMessages(deps.journal, sessionId);
  ensureNotBusy(deps, sessionId);
  if (rt.busy) throw new ApiError(Codes.SESSION_BUSY, 'session busy: a turn, queued prompts or a compaction are pending', { details: { session_id: sessionId } });
  const { plan, written } = rt.undo(count, events);
  if (!plan.ok) {
    throw new ApiError(Codes.UNDO_TOO_FAR, `cannot undo ${count} turn(s): ${plan.undoableCount} undoable`, {
      data: { reason: plan.reason, requestedCount: count, undoableCount: plan.undoableCount },
    });
  }
  const items = plan.remaining.slice(-pageSize).reverse();
  await written;
  return { messages: { items, has_more: plan.remaining.length > pageSize }, status: sessionStatus(deps, findSession(deps, sessionId)) };
}
