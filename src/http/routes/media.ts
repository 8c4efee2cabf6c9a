import * as v from 'valibot';
import { findSessionMedia } from '../../media/session-media.ts';
import { Codes } from '../../../protocol/codes.ts';
import { sendFile } from '../binary.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { Id } from '../../../protocol/schemas/common.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MediaFiles } from '../../media/file-part.ts';
import type { SessionLookup } from '../../sessions/lookup.ts';

const MediaParams = v.object({ session_id: Id, file_id: Id });

/** Core "Sessions" media: a missing session or file is a real HTTP 404 (with an envelope body). */
function notFound404(code: typeof Codes.SESSION_NOT_FOUND | typeof Codes.FILE_NOT_FOUND, what: string, id: string): ApiError {
  return new ApiError(code, `${what} not found: ${id}`, { details: { id }, httpStatus: 404 });
}

/** Session media first (committed with a prompt), then staged uploads. Storage errors are HTTP 500. */
async function locate(deps: MediaRouteDeps, sessionId: string, fileId: string) {
  try {
    const media = await findSessionMedia(deps, sessionId, fileId);
    if (media) return { path: media.path, stat: media.stat, mediaType: media.meta.media_type };
    const upload = await deps.uploads.resolve(fileId);
    if (typeof upload !== 'string') return { path: upload.path, stat: upload.stat, mediaType: upload.meta.media_type, name: upload.meta.name };
  } catch (err) {
    deps.log.error({ err, session_id: sessionId, file_id: fileId }, 'session media storage failure');
    throw new ApiError(Codes.PERSISTENCE, 'media storage failure', { httpStatus: 500 });
  }
  throw notFound404(Codes.FILE_NOT_FOUND, 'file', fileId);
}

export type MediaRouteDeps = SessionLookup & MediaFiles & { log: Logger };

export function mediaRoutes(deps: MediaRouteDeps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/media/{file_id}', operationId: 'getSessionMedia', tags: ['sessions'],
      summary: 'Binary prompt media of the session (Range: 206/416, ETag/304); an id not committed to the session falls back to staged uploads. '
        + 'Unknown session: HTTP 404 with a 40401 envelope; unknown file: HTTP 404 with a 40407 envelope.',
      params: MediaParams, codes: [Codes.SESSION_NOT_FOUND, Codes.FILE_NOT_FOUND, Codes.PERSISTENCE], raw: true,
      handler: async ({ params, ctx }) => {
        const s = deps.sessions.get(params.session_id);
        if (!s || !deps.workspaces.get(s.workspace_id)) throw notFound404(Codes.SESSION_NOT_FOUND, 'session', params.session_id);
        const file = await locate(deps, params.session_id, params.file_id);
        if (file.name) ctx.attachment(file.name, { type: 'inline' });
        sendFile(ctx, file.path, file.stat, { conditional: true, contentType: file.mediaType, strictRange: true });
      },
    }),
  ];
}
