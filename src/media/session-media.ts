import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { copyFile, cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { validationError } from '../../protocol/errors.ts';

/**
 * Binary media committed with a session's prompts (decoded base64 image and
 * video parts), served by GET /sessions/{id}/media/{file_id}. Stored as files
 * under <home>/sessions-media/<session_id>/: `<file_id>` (bytes) beside
 * `<file_id>.json` (meta). Ids are `media_<ULID>` for decoded base64 parts; an
 * upload referenced by a prompt (a `{kind:file}` image/video source or a `file`
 * content part) is committed as a copy under its own `file_<ULID>` id, so the
 * prompt stays readable after the upload expires or is deleted.
 */
export const SESSION_MEDIA_ID_RE = /^(?:media|file)_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Session ids become directory names: only plain characters. */
const SAFE_SESSION_ID_RE = /^[A-Za-z0-9_-]{1,200}$/;
export const MEDIA_TYPE_RE = /^[\w.+-]+\/[\w.+-]+$/;
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

/** Where session media lives (`<home>/sessions-media/`) and what stamps a new file's id and time. */
export interface MediaStore {
  home: string;
  clock: Clock;
  ids: Ids;
}

function dirOf(deps: Pick<MediaStore, 'home'>, sessionId: string): string {
  return sessionMediaDir(deps.home, sessionId);
}

/** A session's media folder (`<home>/sessions-media/<session>/`). */
export function sessionMediaDir(home: string, sessionId: string): string {
  checkIds(sessionId);
  return path.join(home, 'sessions-media', sessionId);
}

/** Base64 (standard or URL-safe, optional `data:` prefix) to bytes; undefined when it is not base64. */
export function decodeBase64(data: string): Buffer | undefined {
  const body = data.startsWith('data:') ? data.slice(data.indexOf(',') + 1) : data;
  const clean = body.replace(/\s+/g, '');
  // A length of 4n+1 cannot be base64; Buffer.from would silently drop the tail.
  if (!clean || !BASE64_RE.test(clean) || clean.replace(/=+$/, '').length % 4 === 1) return undefined;
  return Buffer.from(clean, 'base64');
}

function decode(data: string): Buffer {
  const bytes = decodeBase64(data);
  if (!bytes) throw validationError([{ field: 'data', message: 'must be non-empty base64' }]);
  return bytes;
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
export async function storeSessionMedia(deps: MediaStore, sessionId: string, input: SessionMediaInput): Promise<SessionMediaMeta> {
  checkIds(sessionId);
  if (!MEDIA_TYPE_RE.test(input.media_type)) throw validationError([{ field: 'media_type', message: 'must be a media type such as image/png' }]);
  return storeSessionMediaBytes(deps, sessionId, input.media_type, decode(input.data));
}

/** storeSessionMedia for bytes already decoded and checked by the caller. */
export async function storeSessionMediaBytes(
  deps: MediaStore, sessionId: string, mediaType: string, bytes: Buffer,
): Promise<SessionMediaMeta> {
  checkIds(sessionId);
  const dir = dirOf(deps, sessionId);
  await mkdir(dir, { recursive: true });
  const meta: SessionMediaMeta = {
    id: deps.ids.next('media'), session_id: sessionId, media_type: mediaType, size: bytes.length, created_at: deps.clock.now().toISOString(),
  };
  // Bytes first: meta.json is the commit mark that makes the id findable.
  await writeAtomic(path.join(dir, meta.id), bytes);
  await writeAtomic(path.join(dir, `${meta.id}.json`), JSON.stringify(meta));
  return meta;
}

function checkIds(sessionId: string, fileId?: string): void {
  if (!SAFE_SESSION_ID_RE.test(sessionId)) throw validationError([{ field: 'session_id', message: 'not a storable session id' }]);
  if (fileId !== undefined && !SESSION_MEDIA_ID_RE.test(fileId)) throw validationError([{ field: 'file_id', message: 'not a media id' }]);
}

/**
 * Commits a copy of an upload's bytes to the session under the upload's own id.
 * Resolves to `created: false` when the session already holds that id (an upload
 * referenced by an earlier prompt), so a caller only discards what it created.
 */
export async function commitUploadCopy(
  deps: Pick<MediaStore, 'home' | 'clock'>, sessionId: string, upload: { id: string; path: string; media_type: string },
): Promise<{ meta: SessionMediaMeta; created: boolean }> {
  checkIds(sessionId, upload.id);
  const existing = await findSessionMedia(deps, sessionId, upload.id);
  if (existing) return { meta: existing.meta, created: false };
  const dir = dirOf(deps, sessionId);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, upload.id);
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await copyFile(upload.path, tmp);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  const meta: SessionMediaMeta = {
    id: upload.id, session_id: sessionId, media_type: upload.media_type, size: (await stat(file)).size, created_at: deps.clock.now().toISOString(),
  };
  await writeAtomic(path.join(dir, `${upload.id}.json`), JSON.stringify(meta));
  return { meta, created: true };
}

/** Removes one media file of a session (meta first, so a half-removed id is not findable). */
export async function removeSessionMedia(deps: Pick<MediaStore, 'home'>, sessionId: string, fileId: string): Promise<void> {
  checkIds(sessionId, fileId);
  const dir = dirOf(deps, sessionId);
  await rm(path.join(dir, `${fileId}.json`), { force: true });
  await rm(path.join(dir, fileId), { force: true });
}

/** Removes every media file of a session (a fork whose journal append was refused). */
export async function removeAllSessionMedia(deps: Pick<MediaStore, 'home'>, sessionId: string): Promise<void> {
  checkIds(sessionId);
  await rm(dirOf(deps, sessionId), { recursive: true, force: true });
}

/**
 * A fork's copied prompts reference the source's media ids: copy the source's
 * media directory to the fork so they stay readable (and survive the source).
 */
export async function copySessionMedia(deps: Pick<MediaStore, 'home'>, fromId: string, toId: string): Promise<void> {
  checkIds(fromId);
  checkIds(toId);
  try {
    await cp(dirOf(deps, fromId), dirOf(deps, toId), { recursive: true, errorOnExist: false, force: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}


/** The committed media `fileId` of a session, or undefined (also for ids that are not media ids). */
export async function findSessionMedia(deps: Pick<MediaStore, 'home'>, sessionId: string, fileId: string): Promise<FoundSessionMedia | undefined> {
  if (!SAFE_SESSION_ID_RE.test(sessionId) || !SESSION_MEDIA_ID_RE.test(fileId)) return undefined;
  const dir = dirOf(deps, sessionId);
  try {
    const meta = JSON.parse(await readFile(path.join(dir, `${fileId}.json`), 'utf8')) as SessionMediaMeta;
    const file = path.join(dir, fileId);
    return { meta, path: file, stat: await stat(file) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
