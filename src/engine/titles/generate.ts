import type { SessionRecord } from '../../../projections/session-index/session-index.ts';
import type { EventJournal } from '../../events/journal.ts';
import type { NewStreamEvent } from '../../../protocol/events/registry.ts';
import type { Clock } from '../../lib/clock.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import type { ModelClient, WireError } from '../../providers/wire/types.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../../sessions/lookup.ts';
import { titleBackend, type TitleBackendDeps } from './model.ts';
import { cleanTitle, conversationOf, sourceText, titleRequest, type TitleSource } from './prompt.ts';


/** What a title is generated from and journaled to. */
export type TitleDeps = OwnedSessionLookup & TitleBackendDeps & { journal: EventJournal; clock: Clock };

export interface GenerateTitleOptions {
  force?: boolean;
  source?: TitleSource;
  /** Cancels the model request (server shutdown). */
  signal?: AbortSignal;
}

/** One model call must not hold a request (or the auto-title queue) for long. */
const TITLE_TIMEOUT_MS = 30_000;

function unavailable(reason: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(Codes.TITLE_GENERATION_UNAVAILABLE, `title generation unavailable: ${message}`, { details: { reason, ...extra } });
}

/** Refuses when the session already has a title that this call may not replace. */
function checkTitle(s: SessionRecord, force: boolean): void {
  // A custom title wins over generated ones, even with force.
  if (s.title && s.title_source === 'custom') throw unavailable('custom_title', 'the session has a custom title');
  // The first prompt stands in for a title until one is made: it is replaced without force.
  if (s.title && s.title_source !== 'prompt' && !force) throw unavailable('title_exists', 'the session already has a title (use force)');
}

/** `session.title_generated` and the `session.meta.updated` broadcast beside it (spec/clients.md E8). */
export function titleEvents(deps: { clock: Clock }, s: SessionRecord, title: string, source: string, model: string): NewStreamEvent[] {
  return [
    { stream: s.id, type: 'session.title_generated', payload: { title, source, model } },
    {
      stream: s.id,
      type: 'session.meta.updated',
      payload: {
        session_id: s.id, workspace_id: s.workspace_id, title, updated_at: deps.clock.now().toISOString(),
        patch: { title, isCustomTitle: false, ...(s.last_prompt !== undefined ? { lastPrompt: s.last_prompt } : {}) },
      },
    },
  ];
}

/**
 * Generates a session title with the session's model (Core "Sessions"
 * `title/generate`) and journals it: `session.title_generated` on the session
 * stream and `session.meta.updated` beside it (broadcast to every connection). 40923 with
 * `details.reason` when no title can be made.
 */
export async function generateTitle(deps: TitleDeps, sessionId: string, opts: GenerateTitleOptions = {}): Promise<{ title: string }> {
  const force = opts.force ?? false;
  const source = opts.source ?? 'user_prompts';
  const session = findOwnedSession(deps, sessionId);
  checkTitle(session, force);
  const text = sourceText(conversationOf(await deps.journal.readRange(sessionId, 1)), source);
  if (!text) throw unavailable('no_content', `the session has no content for source ${source}`, { source });
  const backend = await titleBackend(deps, session);
  if (!backend.ok) throw unavailable(backend.reason, 'no usable title model', backend.model ? { model: backend.model } : {});
  const title = await askModel(backend.client, text, source, opts.signal);
  // The title may have changed while the model answered.
  const now = findOwnedSession(deps, sessionId);
  if (now.title !== session.title) checkTitle(now, force);
  await deps.journal.append(titleEvents(deps, now, title, source, backend.alias));
  return { title };
}

async function askModel(client: ModelClient, text: string, source: TitleSource, signal?: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(TITLE_TIMEOUT_MS);
  const sig = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let out = '';
  let failure: WireError | undefined;
  for await (const part of client.stream(titleRequest(text, source), sig)) {
    if (part.type === 'text-delta') out += part.text;
    else if (part.type === 'error') failure = part.error;
  }
  if (failure) {
    throw unavailable('backend_failed', failure.message, { kind: failure.kind, ...(failure.status ? { status: failure.status } : {}) });
  }
  const title = cleanTitle(out);
  if (!title) throw unavailable('backend_failed', 'the model answered no title', { kind: 'empty' });
  return title;
}
