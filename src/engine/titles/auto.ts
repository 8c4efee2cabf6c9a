import { GLOBAL_STREAM, GUI_STREAM } from '../../../journal/keys.ts';
import type { JournalEvent } from '../../../journal/types.ts';
import type { Logger } from '../../app/logger.ts';
import { EngineEvents } from '../events.ts';
import type { TurnEndedPayload } from '../../../protocol/events/turns.ts';
import { generateTitle, type TitleDeps } from './generate.ts';

export interface AutoTitle {
  /** Subscriber of committed events (src/app/subscribers.ts): starts a title when a main-agent turn ends untitled. */
  onCommitted(events: JournalEvent[]): void;
  /** Stops reacting, cancels titles in progress and waits for them to settle. */
  stop(): Promise<void>;
}

/**
 * Part B `auto_session_title`: when a main-agent turn ends on a session that
 * still has no title, a title is generated in the background from the user's
 * prompts. Read from the config at each turn end, so a change applies at once.
 * Failures are logged and dropped: a title never blocks or fails a turn.
 */
export function createAutoTitle(deps: TitleDeps & { log: Logger }): AutoTitle {
  const inFlight = new Map<string, Promise<void>>();
  const abort = new AbortController();

  const run = (sessionId: string) => {
    const job = generateTitle(deps, sessionId, { source: 'user_prompts', signal: abort.signal })
      .then(() => undefined, (err: Error & { details?: unknown }) => {
        if (!abort.signal.aborted) deps.log.info({ session_id: sessionId, err: err.message, details: err.details }, 'auto session title not generated');
      })
      .finally(() => inFlight.delete(sessionId));
    inFlight.set(sessionId, job);
  };

  const onCommitted = (events: JournalEvent[]) => {
    if (abort.signal.aborted || !deps.config.current().auto_session_title) return;
    for (const e of events) {
      if (e.type !== EngineEvents.turnEnded || e.imported || e.stream === GLOBAL_STREAM || e.stream === GUI_STREAM) continue;
      const agent = (e.payload as Partial<TurnEndedPayload>)?.agent_id;
      if (agent !== undefined && agent !== 'main') continue;
      const s = deps.sessions.get(e.stream);
      if (!s || s.title || s.foreign || inFlight.has(e.stream)) continue;
      run(e.stream);
    }
  };

  return {
    onCommitted,
    async stop() {
      abort.abort();
      await Promise.all(inFlight.values());
    },
  };
}
