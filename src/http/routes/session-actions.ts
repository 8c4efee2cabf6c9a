import * as v from 'valibot';
import { archiveSession, forkSession, restoreSession, type SessionCommandDeps } from '../../sessions/commands.ts';
import { cursorPage } from '../../sessions/list/v1.ts';
import { findOwnedSession, findSession } from '../../sessions/lookup.ts';
import { toSessionObject } from '../../sessions/view.ts';
import { requestCompaction } from '../../engine/compaction/action.ts';
import { undoTurns } from '../../engine/undo-action.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { ChildrenQuery, CompactBody, EmptyBody, ForkBody, SessionIdParams, SessionObject, SessionPage, UndoBody } from '../../../protocol/schemas/sessions.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';
import type { SessionInfoDeps } from '../../sessions/info.ts';
import { deleteSession, type DeleteSessionDeps } from '../../sessions/delete.ts';

const tags = ['sessions'];

export type SessionActionRouteDeps = SessionCommandDeps & SessionInfoDeps & DeleteSessionDeps & { engine: Pick<EngineRegistry, 'get' | 'runtime' | 'forkBtw' | 'unload'> };

/** `POST /api/v1/sessions/{session_id}:{action}` and the children routes. */
export function sessionActionRoutes(deps: SessionActionRouteDeps): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:fork', operationId: 'forkSession', summary: 'Fork into a new session in the same workspace (default title `Fork: <title>`)', tags,
      params: SessionIdParams, body: ForkBody, data: SessionObject, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY],
      handler: ({ params, body }) => forkSession(deps, params.session_id, body, 'fork'),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:archive', operationId: 'archiveSession', summary: 'Archive (hide from the default list)', tags,
      params: SessionIdParams, body: EmptyBody, data: v.object({ archived: v.literal(true) }), codes: [Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY],
      handler: async ({ params }) => {
        await archiveSession(deps, params.session_id);
        return { archived: true };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:delete', operationId: 'deleteSession',
      summary: 'Delete for good (web clients, spec/clients.md D1): refused while busy; gone from every list and read, its journal stream removed, event.session.deleted broadcast', tags,
      params: SessionIdParams, body: EmptyBody, data: v.object({ deleted: v.literal(true) }), codes: [Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY],
      handler: async ({ params }) => {
        await deleteSession(deps, params.session_id);
        return { deleted: true as const };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:restore', operationId: 'restoreSession', summary: 'Un-archive', tags,
      params: SessionIdParams, body: EmptyBody, data: SessionObject, codes: [Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY],
      handler: async ({ params }) => {
        await restoreSession(deps, params.session_id);
        return toSessionObject(findSession(deps, params.session_id), deps.live);
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:abort', operationId: 'abortSessionTurn', summary: 'Cancel the running main turn (a no-op when idle)', tags,
      params: SessionIdParams, body: EmptyBody, data: v.object({ aborted: v.literal(true) }), codes: [Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY],
      handler: ({ params }) => {
        findOwnedSession(deps, params.session_id);
        deps.engine.get(params.session_id)?.abortTurn();
        return { aborted: true };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:compact', operationId: 'compactSession', summary: 'Compact the context; progress as compaction.* events', tags,
      params: SessionIdParams, body: CompactBody, data: v.object({}),
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.COMPACTION_REFUSED, Codes.NO_PROVIDER, Codes.MODEL_NOT_RESOLVED, Codes.SESSION_BUSY],
      handler: ({ params, body }) => requestCompaction(deps, params.session_id, body.instruction),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:undo', operationId: 'undoSessionTurns', summary: 'Undo the last turns', tags,
      params: SessionIdParams, body: UndoBody, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY, Codes.UNDO_TOO_FAR],
      handler: ({ params, body }) => undoTurns(deps, params.session_id, body.count ?? 1, body.page_size ?? 50),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}:btw', operationId: 'btwSession', summary: 'Fork the main agent into a read-only child agent', tags,
      params: SessionIdParams, body: EmptyBody, data: v.object({ agent_id: v.string() }),
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.NO_PROVIDER, Codes.MODEL_NOT_RESOLVED, Codes.SESSION_BUSY],
      handler: async ({ params }) => {
        const session = findOwnedSession(deps, params.session_id);
        // Talk to it with POST /prompts {agent_id}; its events carry that agent_id (docs/agents.md).
        return { agent_id: await deps.engine.forkBtw(session) };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/children', operationId: 'listSessionChildren', summary: 'Child sessions, newest updated first', tags,
      params: SessionIdParams, query: ChildrenQuery, data: SessionPage, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: ({ params, query }) => {
        const parent = findSession(deps, params.session_id);
        const keep = (s: { id: string }) => query.busy === undefined || deps.live.isBusy(s.id) === query.busy;
        const page = cursorPage(deps, query, keep, query.page_size ?? 100, (from) => deps.sessions.walkChildren(parent.id, from));
        return { items: page.items.map((s) => toSessionObject(s, deps.live)), has_more: page.has_more };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/children', operationId: 'createSessionChild', summary: 'Fork recorded as a child (default title `Child: <title>`)', tags,
      params: SessionIdParams, body: ForkBody, data: SessionObject, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY],
      handler: ({ params, body }) => forkSession(deps, params.session_id, body, 'child'),
    }),
  ];
}
