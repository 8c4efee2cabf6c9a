import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { monotonicFactory } from 'ulid';
import type { AppContext } from '../app/context.ts';
import { validationError } from '../http/errors.ts';

/**
 * Binary media committed with a session's prompts (decoded base64 image and
 * video parts), served by GET /sessions/{id}/media/{file_id}. Stored as files
 * under <home>/sessions-media/<session_id>/: `<file_id>` (bytes) beside
 * `<file_id>.json` (meta). Ids are `media_<ULID>`; uploads keep `file_<ULID>`.
 */
export const SESSION_MEDIA_ID_RE = /^media_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Session ids become directory names: only plain characters. */
const SAFE_SESSION_ID_RE = /^[A-Za-z0-9_-]{1,200}$/;
const MEDIA_TYPE_RE = /^[\w.+-]+\/[\w.+-]+$/;
const BASE64_RE = /^[A-Za-z0-9+/_-]*={0,2}$/;

export interface SessionMediaMeta {
  id: string;
  session_id: string;
  media_type: string;
  size: number;
  created_at: string;
}

export interface SessionMediaInput {
  media_type: string;
  /** Base64 (standard or URL-safe), optionally as a `data:<type>;base64,` URL. */
  data: string;
}

export interface FoundSessionMedia {
  meta: SessionMediaMeta;
  path: string;
  stat: Stats;
}

const defaultIds = monotonicFactory();

function dirOf(app: AppContext, sessionId: string): string {
  return path.join(app.home, 'sessions-media', sessionId);
}

function decode(data: string): Buffer {
  const body = data.startsWith('data:') ? data.slice(data.indexOf(',') + 1) : data;
  const clean = body.replace(/\s+/g, '');
  if (!clean || !BASE64_RE.test(clean)) throw validationError([{ field: 'data', message: 'must be non-empty base64' }]);
  return Buffer.from(clean, 'base64');
}

async function writeAtomic(file: string, bytes: Buffer | string): Promise<void> {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Stores one media part of a session; resolves to its meta (`meta.id` is the file_id to reference). */
export async function storeSessionMedia(app: AppContext, sessionId: string, input: SessionMediaInput, nextId = defaultIds): Promise<SessionMediaMeta> {
  if (!SAFE_SESSION_ID_RE.test(sessionId)) throw validationError([{ field: 'session_id', message: 'not a storable session id' }]);
  if (!MEDIA_TYPE_RE.test(input.media_type)) throw validationError([{ field: 'media_type', message: 'must be a media type such as image/png' }]);
  const bytes = decode(input.data);
  const dir = dirOf(app, sessionId);
  await mkdir(dir, { recursive: true });
  const meta: SessionMediaMeta = {
    id: `media_${nextId()}`, session_id: sessionId, media_type: input.media_type, size: bytes.length, created_at: app.clock.now().toISOString(),
  };
  // Bytes first: meta.json is the commit mark that makes the id findable.
  await writeAtomic(path.join(dir, meta.id), bytes);
  await writeAtomic(path.join(dir, `${meta.id}.json`), JSON.stringify(meta));
  return meta;
}


/** The committed media `fileId` of a session, or undefined (also for ids that are not media ids). */
export async function findSessionMedia(app: AppContext, sessionId: string, fileId: string): Promise<FoundSessionMedia | undefined> {
  if (!SAFE_SESSION_ID_RE.test(sessionId) || !SESSION_MEDIA_ID_RE.test(fileId)) return undefined;
  const dir = dirOf(app, sessionId);
  try {
    const meta = JSON.parse(await readFile(path.join(dir, `${fileId}.json`), 'utf8')) as SessionMediaMeta;
    const file = path.join(dir, fileId);
    return { meta, path: file, stat: await stat(file) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
