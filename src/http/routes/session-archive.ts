import { readFile } from 'node:fs/promises';
import { exportSession, type ExportDeps } from '../../archive/export.ts';
import { importArchive, type ImportDeps } from '../../archive/import.ts';
import type { UploadService } from '../../uploads/service.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import { SessionExportBody, SessionImportBody, SessionImportResult } from '../../../protocol/schemas/archive.ts';

export type SessionArchiveRouteDeps = ExportDeps & ImportDeps & { uploads: Pick<UploadService, 'incomingDir' | 'maxBytes'> };

/** Core "Sessions" export, and its inverse (docs/export.md). */
export function sessionArchiveRoutes(deps: SessionArchiveRouteDeps): RouteDef[] {
  const tags = ['sessions'];
  return [
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/export', operationId: 'exportSession', tags,
      summary: 'The session as a zip attachment svc-session-<id>.zip (not an envelope; no Range, no ETag): its journal and its children\'s as '
        + 'JSONL, messages, transcript, settings without secrets, the daemon\'s log lines, web_log, a manifest (docs/export.md). '
        + 'Failures answer an envelope.',
      params: SessionIdParams, body: SessionExportBody, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND], raw: true,
      handler: async ({ params, body, ctx }) => {
        const { zip } = await exportSession(deps, params.session_id, { webLog: body.web_log, desktop: body.desktop });
        ctx.status = 200;
        ctx.attachment(`svc-session-${params.session_id}.zip`);
        ctx.type = 'application/zip';
        ctx.set('Cache-Control', 'no-store');
        ctx.body = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions:import', operationId: 'importSession', tags, successStatus: 201,
      summary: 'Import a session export (multipart part "file"): under its own id, or a new one when that id is taken here. '
        + 'A file that is not a valid export (manifest, checksums, event schemas) is 40001.',
      body: SessionImportBody, data: SessionImportResult, codes: [Codes.VALIDATION],
      multipart: { uploadDir: deps.uploads.incomingDir, maxFileBytes: deps.uploads.maxBytes },
      handler: async ({ body }) => importArchive(deps, new Uint8Array(await readFile(body.file.filepath))),
    }),
  ];
}
