import { open } from 'node:fs/promises';
import type { UploadService } from '../uploads/service.ts';
import { findSessionMedia } from './session-media.ts';

/**
 * Most bytes of an attached text file put into the model's context. Large
 * enough for a typical source file or log excerpt, small enough that one
 * attachment cannot eat a model's context window on every later turn.
 */
export const FILE_PART_TEXT_MAX_BYTES = 64 * 1024;

/** Where a prompt's files are read from: the session's committed media (under `home`), then the uploads. */
export interface MediaFiles {
  home: string;
  uploads: Pick<UploadService, 'resolve' | 'lookup'>;
}

/** A prompt's `file` content part, as journaled. */
export interface FilePartRef { file_id: string; name: string; media_type: string; size: number }

/** Media types whose bytes are read to the model as text (when they also decode as UTF-8). */
const TEXT_TYPE_RE = /^(?:text\/|application\/(?:json|xml|yaml|x-yaml|toml|javascript|x-javascript|typescript|x-sh|x-shellscript|sql|graphql|ld\+json|x-ndjson)\b|[\w.+-]+\/[\w.-]+\+(?:json|xml|yaml)\b)/i;

export function isTextMediaType(mediaType: string): boolean {
  return TEXT_TYPE_RE.test(mediaType.trim());
}

/** The first `max` bytes of a file (one read), and whether there were more. */
async function head(file: string, size: number, max: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, max));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return { bytes: buf.subarray(0, bytesRead), truncated: size > max };
  } finally {
    await fh.close();
  }
}

/**
 * UTF-8 text of `bytes`, or undefined when they are not UTF-8 (or hold NULs,
 * a binary file labelled text). `stream: true` tolerates a character cut by
 * the truncation at the very end instead of calling the whole file invalid.
 */
function utf8(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return undefined;
  }
}

/** Where the bytes live: the session's committed copy, else (prompts accepted before copies were made) the upload. */
async function locate(deps: MediaFiles, sessionId: string, fileId: string) {
  const committed = await findSessionMedia(deps, sessionId, fileId);
  if (committed) return { path: committed.path, size: committed.stat.size, mediaType: committed.meta.media_type };
  const r = await deps.uploads.resolve(fileId);
  return typeof r === 'string' ? undefined : { path: r.path, size: r.stat.size, mediaType: r.meta.media_type };
}

/**
 * The model's view of an attached file: the wire has no document part, so it
 * is text either way. Text files carry their content (capped at
 * FILE_PART_TEXT_MAX_BYTES with a note); other files a note naming the file and
 * its media type; a file gone from storage a note saying so, never a failed turn.
 */
export async function filePartText(deps: MediaFiles, sessionId: string, part: FilePartRef): Promise<string> {
  const label = `"${part.name}" (${part.file_id}, ${part.media_type}, ${part.size} bytes)`;
  let found: Awaited<ReturnType<typeof locate>>;
  try {
    found = await locate(deps, sessionId, part.file_id);
  } catch {
    found = undefined;
  }
  if (!found) return `[attached file unavailable: ${label}]`;
  if (!isTextMediaType(found.mediaType)) return `[attached file ${label}: binary content (${found.mediaType}) not included]`;
  let text: string | undefined;
  let truncated = false;
  try {
    const h = await head(found.path, found.size, FILE_PART_TEXT_MAX_BYTES);
    text = utf8(h.bytes);
    truncated = h.truncated;
  } catch {
    return `[attached file unavailable: ${label}]`;
  }
  if (text === undefined) return `[attached file ${label}: not valid UTF-8 text, content not included]`;
  const note = truncated ? `\n[truncated: first ${FILE_PART_TEXT_MAX_BYTES} of ${found.size} bytes shown]` : '';
  return `[attached file ${label}]\n${text}${note}\n[end of attached file "${part.name}"]`;
}
