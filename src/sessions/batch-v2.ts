import type { Logger } from '../lib/logger.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { SessionBatchResult } from '../../protocol/schemas/sessions-v2.ts';
import { archiveEvents, archiveSession, restoreEvents, restoreSession } from './commands.ts';
import type { LiveSessions } from './live.ts';
import { findOwnedSession, type OwnedSessionLookup } from './lookup.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';

export type BatchAction = 'archive' | 'restore';

function failure(id: string, err: unknown): SessionBatchResult {
  if (err instanceof ApiError) return { id, ok: false, error: { code: err.code, message: err.message } };
  return { id, ok: false, error: { code: Codes.PERSISTENCE, message: 'persistence failure' } };
}

/**
 * POST /api/v2/sessions:archive / :restore. Live sessions go through the
 * single-session command (their full lifecycle); cold ones are patched on disk
 * together in ONE journal append, so thousands of ids cost one write.
 * Per-id failures land in their result; only body validation fails the call.
 */
export async function batchArchiveRestore(deps: OwnedSessionLookup & { journal: EventJournal; live: LiveSessions; clock: Clock; log: Logger }, action: BatchAction, ids: string[]) {
  const unique = [...new Set(ids)];
  const results = new Map<string, SessionBatchResult>();
  const coldIds: string[] = [];
  const coldEvents: NewStreamEvent[] = [];
  const liveIds: string[] = [];
  for (const id of unique) {
    try {
      const s = findOwnedSession(deps, id);
      if (deps.live.get(id)) {
        liveIds.push(id);
        continue;
      }
      coldEvents.push(...(action === 'archive' ? archiveEvents(deps, s) : restoreEvents(s)));
      coldIds.push(id);
      results.set(id, { id, ok: true });
    } catch (err) {
      results.set(id, failure(id, err));
    }
  }
  if (coldEvents.length) {
    try {
      await deps.journal.append(coldEvents);
    } catch (err) {
      deps.log.error({ err, action, count: coldIds.length }, 'v2 batch append failed');
      for (const id of coldIds) results.set(id, failure(id, err));
    }
  }
  for (const id of liveIds) {
    try {
      await (action === 'archive' ? archiveSession(deps, id) : restoreSession(deps, id));
      results.set(id, { id, ok: true });
    } catch (err) {
      if (!(err instanceof ApiError)) deps.log.error({ err, action, session_id: id }, 'v2 batch item failed');
      results.set(id, failure(id, err));
    }
  }
  const ordered = unique.map((id) => results.get(id)!);
  const succeeded = ordered.filter((r) => r.ok).length;
  return { results: ordered, succeeded, failed: ordered.length - succeeded };
}
