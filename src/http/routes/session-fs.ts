import path from 'node:path';
import { downloadFile } from '../../fs/download.ts';
import type { LaunchEnv } from '../../fs/launch.ts';
import { fsList, fsListMany } from '../../fs/list-actions.ts';
import { fsMkdir } from '../../fs/mkdir.ts';
import { fsOpen, fsOpenIn, fsReveal } from '../../fs/open.ts';
import { fsRead } from '../../fs/read.ts';
import { fsStat, fsStatMany } from '../../fs/stat.ts';
import { sendFile } from '../binary.ts';
import { Codes } from '../../../protocol/codes.ts';
import { validationError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import {
  FileEntry, FsDownloadParams, FsListBody, FsListData, FsListManyBody, FsListManyData, FsMkdirBody, FsOpenBody, FsOpened,
  FsOpenInBody, FsPathBody, FsReadBody, FsReadData, FsRevealed, FsSessionParams, FsStatManyBody, FsStatManyData, RuntimeQuery,
} from '../../../protocol/schemas/fs.ts';
import type { SessionFsDeps } from '../../fs/scope.ts';
import { childEnv } from '../../lib/child-env.ts';

const { VALIDATION, SESSION_NOT_FOUND, RUNTIME_NOT_FOUND, PATH_NOT_FOUND, PATH_ESCAPE, PERMISSION_DENIED } = Codes;
const COMMON = [VALIDATION, SESSION_NOT_FOUND, RUNTIME_NOT_FOUND];

/**
 * Part B "File system", in-session actions (search, grep, git_status and diff
 * live in session-fs-search.ts) and the download route. `launchEnv` gives
 * the environment open/open-in/reveal launch with, read at call time.
 */
export function sessionFsRoutes(deps: SessionFsDeps, launchEnv: () => LaunchEnv = () => ({ env: childEnv(), platform: process.platform })): RouteDef[] {
  const tags = ['fs'];
  const params = FsSessionParams;
  return [
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:list', operationId: 'fsList', summary: 'List a directory (optionally several levels deep)', tags,
      params, body: FsListBody, data: FsListData, codes: [...COMMON, PATH_NOT_FOUND, PATH_ESCAPE, PERMISSION_DENIED],
      handler: ({ params: p, body }) => fsList(deps, p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:read', operationId: 'fsRead', summary: 'Read a file (a byte window of it)', tags,
      params, body: FsReadBody, data: FsReadData,
      codes: [...COMMON, PATH_NOT_FOUND, Codes.PATH_IS_DIRECTORY, Codes.BINARY_AS_UTF8, Codes.FILE_TOO_LARGE, PATH_ESCAPE, PERMISSION_DENIED],
      handler: ({ params: p, body }) => fsRead(deps, p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:list_many', operationId: 'fsListMany', summary: 'List several directories; failures fold into partial_errors', tags,
      params, body: FsListManyBody, data: FsListManyData, codes: COMMON,
      handler: ({ params: p, body }) => fsListMany(deps, p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:stat', operationId: 'fsStat', summary: 'Describe one path', tags,
      params, body: FsPathBody, data: FileEntry, codes: [...COMMON, PATH_NOT_FOUND, PATH_ESCAPE, PERMISSION_DENIED],
      handler: ({ params: p, body }) => fsStat(deps, p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:stat_many', operationId: 'fsStatMany', summary: 'Describe several paths (null for missing ones)', tags,
      params, body: FsStatManyBody, data: FsStatManyData, codes: COMMON,
      handler: ({ params: p, body }) => fsStatMany(deps, p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:mkdir', operationId: 'fsMkdir', summary: 'Create a directory', tags,
      params, body: FsMkdirBody, data: FileEntry, codes: [...COMMON, PATH_NOT_FOUND, Codes.PATH_EXISTS, PATH_ESCAPE, PERMISSION_DENIED],
      handler: ({ params: p, body }) => fsMkdir(deps, p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:open', operationId: 'fsOpen', summary: 'Open a path with the default desktop application (local runtime)', tags,
      params, body: FsOpenBody, data: FsOpened, codes: [...COMMON, PATH_NOT_FOUND, PATH_ESCAPE, Codes.INTERNAL],
      handler: ({ params: p, body }) => fsOpen(deps, launchEnv(), p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:open-in', operationId: 'fsOpenIn', summary: 'Open a path in a configured application (local runtime)', tags,
      params, body: FsOpenInBody, data: FsOpened, codes: [...COMMON, PATH_NOT_FOUND, PATH_ESCAPE, Codes.INTERNAL],
      handler: ({ params: p, body }) => fsOpenIn(deps, launchEnv(), p.session_id, body),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/fs:reveal', operationId: 'fsReveal', summary: 'Open the folder containing a path (local runtime)', tags,
      params, body: FsPathBody, data: FsRevealed, codes: [...COMMON, PATH_NOT_FOUND, PATH_ESCAPE, Codes.INTERNAL],
      handler: ({ params: p, body }) => fsReveal(deps, launchEnv(), p.session_id, body),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/fs/{*path}:download', operationId: 'fsDownload',
      summary: 'Download a workspace file (Range 206, ETag 304); failures are envelopes with HTTP 200', tags, raw: true,
      params: FsDownloadParams, query: RuntimeQuery, codes: [VALIDATION, SESSION_NOT_FOUND, RUNTIME_NOT_FOUND, PATH_NOT_FOUND, PATH_ESCAPE, PERMISSION_DENIED],
      handler: async ({ params: p, query, ctx }) => {
        const { abs, st } = await downloadFile(deps, p.session_id, query.runtime_id, p.path);
        sendFile(ctx, abs, st, { conditional: true, downloadName: path.basename(abs) });
      },
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/fs:download', operationId: 'fsDownloadNoPath', summary: 'A download without a path: always 40001', tags,
      params, codes: [VALIDATION],
      handler: () => {
        throw validationError([{ field: 'path', message: 'must not be empty' }]);
      },
    }),
  ];
}
