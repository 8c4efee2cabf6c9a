import { GLOBAL_STREAM, GUI_STREAM } from '../../../journal/keys.ts';
import type { JournalEvent } from '../../../journal/types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PromptAcceptedPayload, TurnEndedPayload } from '../../../protocol/events/turns.ts';
import { FIRST_PROMPT_TITLE } from '../../../protocol/events/session.ts';
import { textOf } from '../../../protocol/schemas/messages.ts';
import { generateTitle, titleEvents, type TitleDeps } from './generate.ts';
import { promptTitle } from './prompt.ts';
import { known } from '../../../protocol/events/known.ts';

export interface AutoTitle {
  /** Subscriber of committed events (src/app/subscribers.ts): starts a title when a main-agent turn ends untitled. */
  onCommitted(events: JournalEvent[]): void;
  /** Stops reacting, cancels titles in progress and waits for them to settle. */
  stop(): Promise<void>;
}

/**
 * A new session is titled with its first prompt at once (shortened; spec/clients.md F, as the reference server does),
 * whatever `auto_session_title` says: it is the session's name until a title is made.
 *
 * Part B `auto_session_title`: when a main-agent turn ends on a session that still has no title, or only its first
 * prompt's, a title is generated in the background from the user's prompts. Read from the config at each turn end,
 * so a change applies at once. A custom title is never replaced. Failures are logged and dropped: a title never
 * blocks or fails a turn.
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

  const fromPrompt = (e: JournalEvent) => {
    const p = e.payload as Partial<PromptAcceptedPayload>;
    const s = deps.sessions.get(e.stream);
    if ((p.agent_id ?? 'main') !== 'main' || !s || s.title || s.title_source !== 'none' || s.foreign) return;
    const title = promptTitle(textOf(p.content ?? []));
    if (!title) return;
    // Appended at once: the index has the title before the next event is looked at, so a second prompt keeps it.
    deps.journal.append(titleEvents(deps, s, title, FIRST_PROMPT_TITLE, '')).catch((err: unknown) => deps.log.warn({ err, session_id: s.id }, 'first prompt title not journaled'));
  };

  const onCommitted = (events: JournalEvent[]) => {
    if (abort.signal.aborted) return;
    const auto = deps.config.current().auto_session_title;
    for (const e of events) {
      if (e.imported || e.stream === GLOBAL_STREAM || e.stream === GUI_STREAM) continue;
      if (known(e).type === 'prompt.accepted') fromPrompt(e);
      if (!auto || known(e).type !== 'turn.ended') continue;
      const agent = (e.payload as Partial<TurnEndedPayload>)?.agent_id;
      if (agent !== undefined && agent !== 'main') continue;
      const s = deps.sessions.get(e.stream);
      if (!s || (s.title && s.title_source !== 'prompt') || s.foreign || inFlight.has(e.stream)) continue;
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
