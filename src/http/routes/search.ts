import type { SearchService } from '../../search/service.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { SearchBody, SearchData } from '../../../protocol/schemas/search.ts';

export interface SearchRouteDeps {
  search: Pick<SearchService, 'search'>;
}

/** Part B "Search and connections": cross-session search (docs/search.md). */
export function searchRoutes(deps: SearchRouteDeps): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/search', operationId: 'search', tags: ['search'],
      summary: 'Cross-session full-text search over user messages, assistant replies and session titles (terms or literal mode). '
        + 'Archived sessions and sessions of deleted workspaces are left out unless container.session_id names them. A live session named '
        + 'by container.session_id is searched in memory (source: live). Page tokens pin the index generation and the query.',
      body: SearchBody, data: SearchData, codes: [Codes.VALIDATION],
      handler: ({ body }) => deps.search.search(body),
    }),
  ];
}
