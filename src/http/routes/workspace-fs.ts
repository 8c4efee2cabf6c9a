import type { FileIndexCache } from '../../fs/search/cache.ts';
import { assertRuntime, workspaceRoot } from '../../fs/search/target.ts';
import { searchIndex } from '../../fs/search/search.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { FsSearchData, WorkspaceFsSearchBody, WorkspaceFsSuggestBody } from '../../../protocol/schemas/fs-search.ts';
import type { EventJournal } from '../../events/journal.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SessionLookup } from '../../sessions/lookup.ts';

const tags = ['file system'];

/** Workspace-level fs:search and fs:suggest (no session needed), on the index cache session fs:search shares (`fileIndexes`). */
export function workspaceFsRoutes(deps: SessionLookup & { journal: EventJournal; clock: Clock }, indexes: FileIndexCache): RouteDef[] {
  const codes = [Codes.VALIDATION, Codes.WORKSPACE_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.SEARCH_TIMEOUT];
  return [
    route({
      method: 'POST', path: '/api/v1/workspace/fs:search', operationId: 'workspaceFsSearch', summary: 'Fuzzy path search in a workspace (an absolute root is registered on the spot)', tags,
      body: WorkspaceFsSearchBody, data: FsSearchData, codes,
      handler: async ({ body }) => {
        assertRuntime(body.runtime_id);
        const root = await workspaceRoot(deps, body.workspace);
        const index = await indexes.get(root, body.follow_gitignore ?? true);
        return searchIndex(index, { ...body, limit: body.limit ?? 50, mode: 'search' });
      },
    }),
    route({
      method: 'POST', path: '/api/v1/workspace/fs:suggest', operationId: 'workspaceFsSuggest', summary: 'File-mention completion: files first, basename and path prefixes lifted, hidden files only on request', tags,
      body: WorkspaceFsSuggestBody, data: FsSearchData, codes,
      handler: async ({ body }) => {
        assertRuntime(body.runtime_id);
        const root = await workspaceRoot(deps, body.workspace);
        const index = await indexes.get(root, body.follow_gitignore ?? true);
        return searchIndex(index, { ...body, limit: body.limit ?? 50, mode: 'suggest', showHidden: body.show_hidden ?? false });
      },
    }),
  ];
}
