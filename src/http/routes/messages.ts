import type * as v from 'valibot';
import type { MessageLog, MessagePage as Page } from '../../../projections/messages/message-log.ts';
import { findSession, type SessionLookup } from '../../sessions/lookup.ts';
import { Codes } from '../../../protocol/codes.ts';
import { notFound, validationError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { MessageListQuery, MessageObject, MessagePage, MessageParams } from '../../../protocol/schemas/messages.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';

const DEFAULT_PAGE = 50;

/**
 * GET /messages: newest first, one bounded range read (page_size + 1 records)
 * from the cursor's position. The role filter applies after slicing, so a page
 * may hold fewer than page_size items while has_more is true.
 */
export async function listMessages(deps: MessageRouteDeps, sessionId: string, q: v.InferOutput<typeof MessageListQuery>): Promise<Page> {
  const session = findSession(deps, sessionId);
  if (q.before_id && q.after_id) {
    throw validationError([
      { field: 'before_id', message: 'before_id and after_id are mutually exclusive' },
      { field: 'after_id', message: 'before_id and after_id are mutually exclusive' },
    ]);
  }
  await deps.engine.resume(session);
  const anchorId = q.before_id ?? q.after_id;
  const from: { older?: number; newer?: number } = {};
  if (anchorId) {
    const seq = await deps.messages.seqOf(sessionId, anchorId);
    if (seq === undefined) throw validationError([{ field: q.before_id ? 'before_id' : 'after_id', message: `unknown message id: ${anchorId}` }]);
    if (q.before_id) from.older = seq;
    else from.newer = seq;
  }
  const page = await deps.messages.page(sessionId, q.page_size ?? DEFAULT_PAGE, from);
  return q.role ? { items: page.items.filter((m) => m.role === q.role), has_more: page.has_more } : page;
}

export type MessageRouteDeps = SessionLookup & { engine: Pick<EngineRegistry, 'resume'>; messages: MessageLog };

/** Core "Messages and transcript": the message list and one message. */
export function messageRoutes(deps: MessageRouteDeps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/messages', operationId: 'listSessionMessages',
      summary: 'Messages of the main agent, newest first (role filter applies after slicing); resumes a cold session', tags: ['messages'],
      params: SessionIdParams, query: MessageListQuery, data: MessagePage, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: ({ params, query }) => listMessages(deps, params.session_id, query),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/messages/{message_id}', operationId: 'getSessionMessage', summary: 'One message', tags: ['messages'],
      params: MessageParams, data: MessageObject, codes: [Codes.SESSION_NOT_FOUND, Codes.MESSAGE_NOT_FOUND],
      handler: async ({ params }) => {
        findSession(deps, params.session_id);
        const m = await deps.messages.get(params.session_id, params.message_id);
        if (!m) throw notFound(Codes.MESSAGE_NOT_FOUND, 'message', params.message_id);
        return m;
      },
    }),
  ];
}
