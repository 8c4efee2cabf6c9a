import * as v from 'valibot';

/** `file_<ULID>`: also what keeps ids safe to use as directory names. */
export const FILE_ID_RE = /^file_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A multipart file part as formidable hands it over (src/http/body.ts). */
export interface UploadedPart {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
}

function isPart(x: unknown): x is UploadedPart {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && typeof (x as UploadedPart).filepath === 'string';
}

/** Ten years: far enough for "keep it", near enough to stay a valid date. */
export const MAX_EXPIRES_IN_SEC = 10 * 365 * 24 * 3600;

export const FileIdParams = v.object({
  file_id: v.pipe(v.string(), v.maxLength(64, 'must be a file id (file_<ULID>)'), v.regex(FILE_ID_RE, 'must be a file id (file_<ULID>)')),
});

/** Multipart fields and file parts of POST /api/v1/files, as one object. */
export const FileUploadBody = v.object({
  file: v.pipe(
    v.custom<UploadedPart>(isPart, 'required: exactly one binary part named "file"'),
    v.metadata({
      type: 'string',
      format: 'binary',
      description: 'The file (binary part). Its content type becomes media_type (else guessed from the name, else application/octet-stream).',
    }),
  ),
  name: v.optional(
    v.pipe(
      v.string('must be a single text field'),
      v.minLength(1, 'must be 1-255 characters'),
      v.maxLength(255, 'must be 1-255 characters'),
      v.description('Display name; default: the uploaded filename.'),
    ),
  ),
  expires_in_sec: v.optional(
    v.pipe(
      v.string('must be a single text field'),
      v.description(`Seconds until the file expires: a number >= 0 (at most ${MAX_EXPIRES_IN_SEC}). Absent or 0: never expires.`),
      v.trim(),
      v.regex(/^\d+(\.\d+)?$/, 'must be a number >= 0'),
      v.transform(Number),
      v.maxValue(MAX_EXPIRES_IN_SEC, `must be <= ${MAX_EXPIRES_IN_SEC}`),
    ),
  ),
});
export type FileUploadBody = v.InferOutput<typeof FileUploadBody>;

/** Uploaded file metadata. */
export const FileObject = v.object({
  id: v.pipe(v.string(), v.description('`file_<ULID>`')),
  name: v.string(),
  media_type: v.string(),
  size: v.pipe(v.number(), v.description('bytes')),
  created_at: v.pipe(v.string(), v.description('ISO 8601')),
  expires_at: v.optional(v.pipe(v.string(), v.description('ISO 8601; absent when the file never expires'))),
});

export const FileDeleted = v.object({ deleted: v.literal(true) });
