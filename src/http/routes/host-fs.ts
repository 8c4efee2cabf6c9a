import { browse, contentFile, home, hostMkdir } from '../../fs/host.ts';
import { sendFile } from '../binary.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { HostBrowseData, HostBrowseQuery, HostHomeData, HostMkdirBody, HostMkdirData, HostPathQuery } from '../../../protocol/schemas/fs.ts';
import type { SessionLookup } from '../../sessions/lookup.ts';

/** Part B host file routes: any path of this machine, gated only by the token (folder pickers, previews). */
export function hostFsRoutes(deps: SessionLookup): RouteDef[] {
  const tags = ['fs'];
  const { VALIDATION, PATH_NOT_FOUND, PERMISSION_DENIED } = Codes;
  return [
    route({
      method: 'GET', path: '/api/v1/fs:browse', operationId: 'hostFsBrowse', summary: 'Sub-directories of a host directory', tags,
      query: HostBrowseQuery, data: HostBrowseData, codes: [VALIDATION, PATH_NOT_FOUND, PERMISSION_DENIED],
      handler: ({ query }) => browse(query.path),
    }),
    route({
      method: 'GET', path: '/api/v1/fs:home', operationId: 'hostFsHome', summary: 'Home directory and recent workspace roots', tags,
      data: HostHomeData,
      handler: () => home(deps),
    }),
    route({
      method: 'GET', path: '/api/v1/fs:content', operationId: 'hostFsContent',
      summary: 'Raw bytes of a host file (Range 206, ETag 304); failures are envelopes with HTTP 200', tags, raw: true,
      query: HostPathQuery, codes: [VALIDATION, PATH_NOT_FOUND, PERMISSION_DENIED, Codes.PATH_IS_DIRECTORY],
      handler: async ({ query, ctx }) => {
        const { abs, st } = await contentFile(query.path);
        sendFile(ctx, abs, st, { conditional: true });
      },
    }),
    route({
      method: 'POST', path: '/api/v1/fs:mkdir', operationId: 'hostFsMkdir', summary: 'Create a host directory (non-recursive)', tags,
      body: HostMkdirBody, data: HostMkdirData, codes: [VALIDATION, PATH_NOT_FOUND, PERMISSION_DENIED, Codes.PATH_EXISTS],
      handler: ({ body }) => hostMkdir(body.path),
    }),
  ];
}
