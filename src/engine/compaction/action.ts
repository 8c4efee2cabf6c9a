import type { ConfigService } from '../../config/service.ts';
import { Codes } from '../../../protocol/codes.ts';
import type { LiveSessions } from '../../sessions/live.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../../sessions/lookup.ts';
import type { EngineRegistry } from '../runtime-registry.ts';
import { compactable } from './compact.ts';
import { sessionModel } from '../model-resolve.ts';

/**
 * POST :compact: checks and starts a manual compaction of the main agent's context, which
 * then runs in the session's runtime (progress as compaction.* events). 40910 while a turn,
 * a compaction or queued prompts are pending, or when there is nothing to compact.
 */
export async function requestCompaction(deps: OwnedSessionLookup & { engine: Pick<EngineRegistry, 'runtime'>; live: LiveSessions; config: ConfigService }, sessionId: string, instruction?: string): Promise<Record<string, never>> {
  const session = findOwnedSession(deps, sessionId);
  const rt = await deps.engine.runtime(session);
  if (deps.live.isBusy(sessionId) || rt.busy) throw refused('busy', 'a turn or another context change is active');
  if (!compactable(rt.history)) throw refused('nothing_to_compact', 'no context since the last compaction');
  // The session's model, as a turn would pick it without a prompt override (40110 / 40113).
  const { model } = sessionModel(deps, session);
  const text = instruction?.trim();
  rt.startCompaction(model, text || undefined);
  return {};
}

function refused(reason: string, message: string): ApiError {
  return new ApiError(Codes.COMPACTION_REFUSED, `compaction refused: ${message}`, { details: { reason } });
}
