import { batchArchiveRestore } from '../../sessions/batch-v2.ts';
import { GitInfoCache } from '../../sessions/git-info.ts';
import { listSessionsV2 } from '../../sessions/list/v2.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionBatchBody, SessionBatchData, SessionListV2Data, SessionListV2Query } from '../../../protocol/schemas/sessions-v2.ts';
import type { SessionListDeps } from '../../sessions/list/v1.ts';

const LIST_SUMMARY = [
  'List sessions (v2): filters, three sorts, flat or by_workspace view, page_token or page paging.',
  'Items carry meta.created_at/updated_at/archived_at as epoch ms; last_prompt and archived_at are null when absent.',
  'Unknown workspace.id values match nothing (no 40410). meta.updated_after/before are exclusive bounds.',
  'page_token binds every parameter except page_size (changed conditions: 40922; malformed: 40001).',
  'Flat data {items, total, has_more, next_page_token}; by_workspace data {groups, total, has_more, next_page_token}.',
].join(' ');

export type SessionV2RouteDeps = SessionListDeps & Parameters<typeof batchArchiveRestore>[0];

/** Part B "GET /api/v2/sessions" and the v2 batch archive/restore routes. */
export function sessionV2Routes(deps: SessionV2RouteDeps): RouteDef[] {
  const git = new GitInfoCache(deps.clock);
  const batch = (action: 'archive' | 'restore', path: string) =>
    route({
      method: 'POST', path, operationId: `${action}SessionsV2`, tags: ['sessions-v2'],
      summary: `${action === 'archive' ? 'Archive' : 'Restore'} sessions in batch; per-id outcomes in input order (unknown id: 40401 in its item)`,
      body: SessionBatchBody, data: SessionBatchData, codes: [Codes.VALIDATION],
      handler: ({ body }) => batchArchiveRestore(deps, action, body.ids),
    });
  return [
    route({
      method: 'GET', path: '/api/v2/sessions', operationId: 'listSessionsV2', summary: LIST_SUMMARY, tags: ['sessions-v2'],
      query: SessionListV2Query, data: SessionListV2Data, codes: [Codes.VALIDATION, Codes.PAGE_TOKEN_MISMATCH],
      handler: ({ query }) => listSessionsV2(deps, git, query),
    }),
    batch('archive', '/api/v2/sessions:archive'),
    batch('restore', '/api/v2/sessions:restore'),
  ];
}
