import type { AppContext } from '../../app/context.ts';
import type { Journal } from '../../../journal/journal.ts';
import { headKey } from '../../../journal/keys.ts';
import type { JournalEvent, StreamHead } from '../../../journal/types.ts';
import { contextTokens } from '../../../projections/usage/estimate.ts';
import { contextLimit, resolvedModel } from '../../sessions/info.ts';
import { findSession } from '../../sessions/lookup.ts';
import { toSessionObject } from '../../sessions/view.ts';
import { Codes } from '../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionSnapshot } from '../../protocol/schemas/messages.ts';
import { SessionIdParams } from '../../protocol/schemas/sessions.ts';

const SNAPSHOT_MESSAGES = 100;
/** A batch normally lands within milliseconds; never hold a request on a stuck disk. */
const COMMIT_WAIT_MS = 5_000;

/** Resolves once the stream's events up to `seq` are on disk (the journal's head moves before its batch is written). */
async function committedThrough(journal: Journal, stream: string, seq: number): Promise<void> {
  let onCommit!: (events: JournalEvent[]) => void;
  let timer: NodeJS.Timeout | undefined;
  const landed = new Promise<void>((resolve) => {
    onCommit = (events) => {
      if (events.some((e) => e.stream === stream && e.seq >= seq)) resolve();
    };
    journal.on('committed', onCommit);
    timer = setTimeout(resolve, COMMIT_WAIT_MS);
  });
  try {
    const stored = (await journal.db.get(headKey(stream))) as StreamHead | undefined;
    if (!stored || stored.seq < seq) await landed;
  } finally {
    journal.off('committed', onCommit);
    clearTimeout(timer);
  }
}

/**
 * GET /snapshot. Every in-memory part (session, usage, in-flight turn, head) is
 * read in one synchronous step, so they describe the same stream position
 * `as_of_seq`; the messages are then read from disk bounded by that seq. A
 * client that subscribes with {seq: as_of_seq, epoch} gets exactly what follows.
 */
export async function sessionSnapshot(app: AppContext, id: string) {
  const s = findSession(app, id);
  const head = app.journal.head(id) ?? { seq: 0, epoch: '' };
  const u = app.usage.get(id);
  const model = resolvedModel(app, s) ?? '';
  const limit = contextLimit(app, model);
  const session = toSessionObject(s, app.live);
  session.agent_config = { model };
  session.usage = {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_tokens: u.cache_read_tokens,
    cache_creation_tokens: u.cache_creation_tokens,
    context_tokens: contextTokens(u, app.config.current().token_counting.strategy),
    ...(limit !== undefined ? { context_limit: limit } : {}),
    turn_count: u.turn_count,
  };
  const in_flight_turn = u.in_flight ? { ...u.in_flight } : null;
  await committedThrough(app.journal, id, head.seq);
  const messages = await app.messages.page(id, SNAPSHOT_MESSAGES, { upTo: head.seq });
  const subagents = app.tasks.list(id).map((t) => t.toObject()).filter((t) => t.kind === 'subagent');
  return {
    as_of_seq: head.seq, epoch: head.epoch, session, messages, in_flight_turn, ...(subagents.length ? { subagents } : {}),
    pending_approvals: app.permissions.pendingItems(id), pending_questions: app.questions.pendingItems(id),
  };
}

export function snapshotRoutes(app: AppContext): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/snapshot', operationId: 'getSessionSnapshot',
      summary: 'Session, newest 100 messages, usage and in-flight turn as of one stream position (subscribe with as_of_seq/epoch)', tags: ['sessions'],
      params: SessionIdParams, data: SessionSnapshot, codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => sessionSnapshot(app, params.session_id),
    }),
  ];
}
