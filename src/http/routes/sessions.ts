import { createSession } from '../../sessions/commands.ts';
import { listSessionsV1 } from '../../sessions/list/v1.ts';
import { findSession } from '../../sessions/lookup.ts';
import { toSessionObject } from '../../sessions/view.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionCreateBody, SessionIdParams, SessionListQuery, SessionObject, SessionPage } from '../../../protocol/schemas/sessions.ts';
import type { SessionCommandDeps } from '../../sessions/commands.ts';
import type { SessionListDeps } from '../../sessions/list/v1.ts';

export type SessionRouteDeps = SessionCommandDeps & SessionListDeps;

/** Core "Sessions": create, list, get. */
export function sessionRoutes(deps: SessionRouteDeps): RouteDef[] {
  const get = (id: string) => toSessionObject(findSession(deps, id), deps.live);
  return [
    route({
      method: 'POST', path: '/api/v1/sessions', operationId: 'createSession', summary: 'Create a session', tags: ['sessions'],
      body: SessionCreateBody, data: SessionObject, codes: [Codes.VALIDATION, Codes.PATH_NOT_FOUND, Codes.WORKSPACE_NOT_FOUND],
      handler: ({ body }) => createSession(deps, body),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions', operationId: 'listSessions', summary: 'List sessions, newest updated first', tags: ['sessions'],
      query: SessionListQuery, data: SessionPage, codes: [Codes.VALIDATION, Codes.WORKSPACE_NOT_FOUND],
      handler: ({ query }) => listSessionsV1(deps, query),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}', operationId: 'getSession', summary: 'Get a session', tags: ['sessions'],
      params: SessionIdParams, data: SessionObject, codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => get(params.session_id),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/profile', operationId: 'getSessionProfile', summary: 'Get a session (profile view)', tags: ['sessions'],
      params: SessionIdParams, data: SessionObject, codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => get(params.session_id),
    }),
  ];
}
