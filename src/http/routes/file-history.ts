import { changesOf, contentOf, type FileHistoryState } from '../../../projections/file-history/reducer.ts';
import type { FileHistoryProjection } from '../../../projections/file-history/projection.ts';
import { Codes } from '../../../protocol/codes.ts';
import { FileChangesData, FileChangesQuery, FileContentData, FileContentQuery } from '../../../protocol/schemas/file-history.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import { findSession, type SessionLookup } from '../../sessions/lookup.ts';
import { route, type RouteDef } from '../route.ts';

/** What the file-history routes read: the session, and the file-history projection. */
export interface FileHistoryRouteDeps extends SessionLookup {
  fileHistory: FileHistoryProjection;
}

const tags = ['sessions'];

/** Per-turn file history (spec/clients.md D1, E16; docs/file-history.md): what Write and Edit changed in each main turn. */
export function fileHistoryRoutes(deps: FileHistoryRouteDeps): RouteDef[] {
  const codes = [Codes.VALIDATION, Codes.SESSION_NOT_FOUND];
  /** Both routes: the session must exist (40401), then a view of its history. */
  const read = <T>(sessionId: string, view: (state: FileHistoryState) => T): Promise<T> => {
    findSession(deps, sessionId);
    return deps.fileHistory.read(sessionId, view);
  };
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/file-history/changes', operationId: 'getFileHistoryChanges', tags,
      summary: 'Files Write and Edit changed (or Bash removed after they wrote them) in one main turn: status and line counts between its start and end',
      params: SessionIdParams, query: FileChangesQuery, data: FileChangesData, codes,
      handler: ({ params, query }) => read(params.session_id, (state) => changesOf(state, query.turn_id)),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/file-history/content', operationId: 'getFileHistoryContent', tags,
      summary: 'A changed file\'s content at the start or end of a main turn',
      params: SessionIdParams, query: FileContentQuery, data: FileContentData, codes,
      handler: ({ params, query }) => read(params.session_id, (state) => contentOf(state, query.turn_id, query.path, query.phase)),
    }),
  ];
}
