import * as v from 'valibot';
import { SessionObject } from './sessions.ts';
import type { UploadedPart } from './files.ts';

/** Spec "Limits": export `web_log` at most 256 KB UTF-8. */
export const WEB_LOG_LIMIT = 256 * 1024;

/** POST /api/v1/sessions/{session_id}/export body. */
export const SessionExportBody = v.object({
  web_log: v.optional(v.pipe(
    v.string(),
    v.maxLength(WEB_LOG_LIMIT, `must be at most ${WEB_LOG_LIMIT} bytes of UTF-8`),
    v.check((s) => Buffer.byteLength(s, 'utf8') <= WEB_LOG_LIMIT, `must be at most ${WEB_LOG_LIMIT} bytes of UTF-8`),
    v.description('Client log text stored as web_log.txt (at most 256 KB UTF-8).'),
  )),
  desktop: v.optional(v.pipe(v.boolean(), v.description('Include the desktop host log (this daemon has none: the manifest says not_available).'))),
});

function isPart(x: unknown): x is UploadedPart {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && typeof (x as UploadedPart).filepath === 'string';
}

/** POST /api/v1/sessions:import multipart body. */
export const SessionImportBody = v.object({
  file: v.pipe(
    v.custom<UploadedPart>(isPart, 'required: exactly one binary part named "file"'),
    v.metadata({ type: 'string', format: 'binary', description: 'A zip made by POST /api/v1/sessions/{session_id}/export (docs/export.md).' }),
  ),
});

export const SessionImportResult = v.object({
  session: SessionObject,
  original_id: v.pipe(v.string(), v.description('The session id in the archive')),
  id_changed: v.pipe(v.boolean(), v.description('true when that id was taken in this home and the session got a new one')),
  streams: v.number(),
  events: v.number(),
});
