import { formatBytes } from '../../uploads/types.ts';
import type { ResolvedUpload, UploadService } from '../../uploads/service.ts';
import { sendFile } from '../binary.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { FileDeleted, FileIdParams, FileObject, FileUploadBody } from '../../../protocol/schemas/files.ts';
import type { Logger } from '../../lib/logger.ts';

/** This download is the one endpoint with real HTTP statuses for lookup and storage errors (Core "Errors"). */
function missing(id: string): ApiError {
  return new ApiError(Codes.FILE_NOT_FOUND, `file not found: ${id}`, { details: { id }, httpStatus: 404 });
}

async function resolveForDownload(deps: FileRouteDeps, id: string): Promise<ResolvedUpload> {
  let r: ResolvedUpload | 'unknown' | 'expired';
  try {
    r = await deps.uploads.resolve(id);
  } catch (err) {
    deps.log.error({ err, file_id: id }, 'upload storage failure');
    throw new ApiError(Codes.PERSISTENCE, 'file storage failure', { httpStatus: 500 });
  }
  // Expired files are "not found" here, as the spec says; prompt media lookups report 41003.
  if (typeof r === 'string') throw missing(id);
  return r;
}

export interface FileRouteDeps {
  uploads: UploadService;
  log: Logger;
}

/** Part B "File uploads". */
export function fileRoutes(deps: FileRouteDeps): RouteDef[] {
  const tags = ['files'];
  const { uploads } = deps;
  return [
    route({
      method: 'POST', path: '/api/v1/files', operationId: 'uploadFile', tags,
      summary: `Upload a file (multipart/form-data: file, name, expires_in_sec). At most ${formatBytes(uploads.maxBytes)} of file data `
        + '(SVC_CODE_UPLOAD_MAX_BYTES); larger uploads are refused while streaming with 40001 (details: field file, limit).',
      body: FileUploadBody, data: FileObject, codes: [Codes.VALIDATION],
      multipart: { uploadDir: uploads.incomingDir, maxFileBytes: uploads.maxBytes },
      handler: ({ body }) => uploads.store({
        tempFile: body.file.filepath,
        name: body.name ?? (body.file.originalFilename || 'file'),
        partType: body.file.mimetype,
        expiresInSec: body.expires_in_sec,
      }),
    }),
    route({
      method: 'GET', path: '/api/v1/files/{file_id}', operationId: 'downloadFile', tags,
      summary: 'The file bytes (Range: 206/416). Sends an ETag but ignores If-None-Match. Unknown or expired: HTTP 404 with a 40407 envelope; '
        + 'storage failure: HTTP 500 with a 50003 envelope; a malformed id: HTTP 200 with 40001.',
      params: FileIdParams, codes: [Codes.VALIDATION, Codes.FILE_NOT_FOUND, Codes.PERSISTENCE], raw: true,
      handler: async ({ params, ctx }) => {
        const file = await resolveForDownload(deps, params.file_id);
        ctx.attachment(file.meta.name, { type: 'inline' });
        sendFile(ctx, file.path, file.stat, { conditional: false, contentType: file.meta.media_type, strictRange: true });
      },
    }),
    route({
      method: 'DELETE', path: '/api/v1/files/{file_id}', operationId: 'deleteFile', tags,
      summary: 'Delete an uploaded file. Unknown or expired: HTTP 404 with a 40407 envelope.',
      params: FileIdParams, data: FileDeleted, codes: [Codes.VALIDATION, Codes.FILE_NOT_FOUND],
      handler: async ({ params }) => {
        if (!(await uploads.remove(params.file_id))) throw missing(params.file_id);
        return { deleted: true as const };
      },
    }),
  ];
}
