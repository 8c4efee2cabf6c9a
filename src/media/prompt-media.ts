import type { ContentPart } from '../../protocol/events/turns.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound, validationError } from '../../protocol/errors.ts';
import type { PromptInput } from '../../protocol/schemas/prompts.ts';
import type { Logger } from '../lib/logger.ts';
import type { ResolvedUpload } from '../uploads/service.ts';
import type { MediaFiles } from './file-part.ts';
import { commitUploadCopy, decodeBase64, findSessionMedia, MEDIA_TYPE_RE, removeSessionMedia, storeSessionMediaBytes, type MediaStore } from './session-media.ts';

/** The stores a prompt's media is checked against and committed to. */
export type PromptMediaDeps = MediaStore & MediaFiles & { log: Logger };

/**
 * Largest decoded base64 part. Below the 16 MB JSON body limit (base64 adds a
 * third), so an oversize part gets this 40001 rather than the body limit's.
 */
export const PROMPT_MEDIA_MAX_BYTES = 10 * 1024 * 1024;

type InputPart = PromptInput['content'][number];
type MediaKind = 'image' | 'video';

/** Work left for commit time, found valid by planPromptMedia. */
type Pending =
  | { index: number; type: MediaKind; kind: 'base64'; mediaType: string; bytes: Buffer }
  /** `name` is set for a `file` content part (the name to journal), absent for an image/video source. */
  | { index: number; kind: 'file'; upload: ResolvedUpload; name?: string };

/**
 * A prompt's media, validated. `commit` stores it and returns the content to
 * journal: base64 parts become `{kind:session_media, file_id, media_type}` (no
 * base64 ever reaches the journal); `{kind:file}` sources and `file` content
 * parts keep their upload id, a copy committed to the session under it. `discard`
 * undoes a commit whose prompt was not journaled after all.
 */
export interface MediaPlan {
  commit(): Promise<ContentPart[]>;
  discard(): Promise<void>;
}

const field = (i: number, name: string) => `content[${i}].source.${name}`;
const ofKind = (mediaType: string, kind: MediaKind) => mediaType.toLowerCase().startsWith(`${kind}/`);

function wrongKind(i: number, id: string, mediaType: string, kind: MediaKind): ApiError {
  return new ApiError(Codes.FILE_NOT_FOUND, `file ${id} is ${mediaType}, not ${kind}`, {
    details: { id, field: field(i, 'file_id'), media_type: mediaType, expected: `${kind}/*` },
  });
}

function checkUrl(i: number, url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Reported below.
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') throw validationError([{ field: field(i, 'url'), message: 'must be an http(s) URL' }]);
}

function decodePart(i: number, kind: MediaKind, mediaType: string, data: string, maxBytes: number): Pending {
  if (!MEDIA_TYPE_RE.test(mediaType) || !ofKind(mediaType, kind)) {
    throw validationError([{ field: field(i, 'media_type'), message: `must be a ${kind}/* media type` }]);
  }
  // Cheap bound before decoding: 4 base64 characters carry 3 bytes.
  const tooBig = (n: number) => validationError([{ field: field(i, 'data'), message: `decoded size ${n} bytes exceeds the ${maxBytes} byte limit` }]);
  if (Math.floor(data.length / 4) * 3 > maxBytes + 3 && !data.startsWith('data:')) throw tooBig(Math.floor(data.length / 4) * 3);
  const bytes = decodeBase64(data);
  if (!bytes || bytes.length === 0) throw validationError([{ field: field(i, 'data'), message: 'must be non-empty base64' }]);
  if (bytes.length > maxBytes) throw tooBig(bytes.length);
  return { index: i, type: kind, kind: 'base64', mediaType: mediaType.toLowerCase(), bytes };
}

/** Validates one part; resolves to the work it leaves for commit time, if any. */
async function checkPart(deps: PromptMediaDeps, sessionId: string, i: number, part: InputPart, maxBytes: number): Promise<Pending | undefined> {
  if (part.type === 'file') {
    // 40407 unknown / 41003 expired, like any upload reference, before anything is stored.
    const upload = await deps.uploads.lookup(part.file_id);
    return { index: i, kind: 'file', upload, name: part.name.trim() || upload.meta.name };
  }
  if (part.type !== 'image' && part.type !== 'video') return undefined;
  const src = part.source;
  if (src.kind === 'url') return void checkUrl(i, src.url);
  if (src.kind === 'base64') return decodePart(i, part.type, src.media_type, src.data, maxBytes);
  if (src.kind === 'session_media') {
    const found = await findSessionMedia(deps, sessionId, src.file_id);
    if (!found) throw new ApiError(Codes.FILE_NOT_FOUND, `session media not found: ${src.file_id}`, { details: { id: src.file_id, field: field(i, 'file_id') } });
    if (!ofKind(found.meta.media_type, part.type)) throw wrongKind(i, src.file_id, found.meta.media_type, part.type);
    return undefined;
  }
  const upload = await deps.uploads.lookup(src.file_id);
  if (!ofKind(upload.meta.media_type, part.type)) throw wrongKind(i, src.file_id, upload.meta.media_type, part.type);
  return { index: i, kind: 'file', upload };
}

/** Checks every media reference of a prompt (Core: 40001, 40407, 41003) without storing anything. */
export async function planPromptMedia(
  deps: PromptMediaDeps, sessionId: string, content: PromptInput['content'], maxBytes = PROMPT_MEDIA_MAX_BYTES,
): Promise<MediaPlan> {
  const pending: Pending[] = [];
  for (const [i, part] of content.entries()) {
    const p = await checkPart(deps, sessionId, i, part, maxBytes);
    if (p) pending.push(p);
  }
  const created: string[] = [];
  const discard = async () => {
    for (const id of created.splice(0)) await removeSessionMedia(deps, sessionId, id).catch((err) => deps.log.warn({ err, id }, 'prompt media cleanup failed'));
  };
  const commit = async (): Promise<ContentPart[]> => {
    const out = structuredClone(content) as ContentPart[];
    try {
      for (const p of pending) await commitOne(deps, sessionId, p, out, created);
    } catch (err) {
      await discard();
      throw err;
    }
    return out;
  };
  return { commit, discard };
}

async function commitOne(deps: PromptMediaDeps, sessionId: string, p: Pending, out: ContentPart[], created: string[]): Promise<void> {
  if (p.kind === 'base64') {
    const meta = await storeSessionMediaBytes(deps, sessionId, p.mediaType, p.bytes);
    created.push(meta.id);
    out[p.index] = { type: p.type, source: { kind: 'session_media', file_id: meta.id, media_type: meta.media_type } };
    return;
  }
  try {
    const r = await commitUploadCopy(deps, sessionId, { id: p.upload.meta.id, path: p.upload.path, media_type: p.upload.meta.media_type });
    if (r.created) created.push(r.meta.id);
    // A `file` part's media_type and size are filled from the committed copy, not
    // checked against what the client sent: they must describe the bytes the
    // session holds (and the model reads), and a client echoing an upload's
    // metadata gets the same values anyway. The name is a display label the
    // client may choose; an empty one falls back to the upload's name.
    if (p.name !== undefined) {
      out[p.index] = { type: 'file', file_id: r.meta.id, name: p.name, media_type: r.meta.media_type, size: r.meta.size };
    }
  } catch (err) {
    // The upload was deleted or expired between the check and the commit.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(Codes.FILE_NOT_FOUND, 'file', p.upload.meta.id);
    throw err;
  }
}
