import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import etag from 'etag';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import { fsError, isADirectory } from './errors.ts';
import { fsSession, resolvePath, type SessionFsDeps } from './scope.ts';
import { countLines, decode, languageIdFor, mimeFor, sniff, SNIFF_BYTES } from './text.ts';

/** Core Limits: files over 10 MiB are refused whatever window is asked for. */
export const READ_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const READ_DEFAULT_LENGTH = 1024 * 1024;

export type ReadEncoding = 'auto' | 'utf-8' | 'base64';

export interface ReadInput {
  runtime_id?: string;
  path: string;
  offset?: number;
  length?: number;
  encoding?: ReadEncoding;
}

/** 40906 / 40001 / 41302 before anything is read. */
function checkReadable(st: Stats, given: string): void {
  if (st.isDirectory()) throw isADirectory(given);
  if (!st.isFile()) throw validationError([{ field: 'path', message: 'not a regular file' }]);
  if (st.size > READ_MAX_FILE_BYTES) {
    throw new ApiError(Codes.FILE_TOO_LARGE, `file is over 10 MiB (${st.size} bytes): ${given}`, {
      details: { path: given, size: st.size, limit: READ_MAX_FILE_BYTES },
    });
  }
}

/**
 * The whole file and its stats, read through one handle so the etag matches
 * the bytes. The path is stat-ed before it is opened: opening a FIFO would
 * block until a writer came.
 */
async function readWhole(abs: string, given: string): Promise<{ st: Stats; bytes: Buffer }> {
  let fh;
  try {
    checkReadable(await stat(abs), given);
    fh = await open(abs, 'r');
  } catch (err) {
    fsError(err, given);
  }
  try {
    const st = await fh.stat();
    checkReadable(st, given);
    return { st, bytes: await fh.readFile() };
  } catch (err) {
    fsError(err, given);
  } finally {
    await fh.close();
  }
}

/**
 * POST fs:read. `offset` and `length` are byte positions in the file (a window
 * cutting a multi-byte character shows U+FFFD at its edge). Text is sent as
 * UTF-8 whatever its charset on disk (UTF-8, UTF-16 with a BOM, else
 * windows-1252); binary as base64. `line_count` counts the whole file (it is
 * read whole anyway, at most 10 MiB) and is set for text files only.
 */
export async function fsRead(deps: SessionFsDeps, sessionId: string, body: ReadInput) {
  const s = fsSession(deps, sessionId, body.runtime_id);
  const p = await resolvePath(deps, s, body.path);
  const { st, bytes } = await readWhole(p.abs, body.path);
  const encoding = body.encoding ?? 'auto';
  const sn = sniff(bytes.subarray(0, SNIFF_BYTES));
  if (encoding === 'utf-8' && sn.binary) {
    throw new ApiError(Codes.BINARY_AS_UTF8, `binary file cannot be read as utf-8: ${body.path}`, { details: { path: body.path } });
  }
  const offset = body.offset ?? 0;
  const length = body.length ?? READ_DEFAULT_LENGTH;
  const window = bytes.subarray(offset, offset + length);
  const asText = encoding === 'utf-8' || (encoding === 'auto' && !sn.binary);
  const name = path.basename(p.abs);
  const language_id = languageIdFor(name);
  return {
    path: p.wire,
    content: asText ? decode(window, sn.charset!) : window.toString('base64'),
    encoding: asText ? 'utf-8' : 'base64',
    size: bytes.length,
    truncated: offset + length < bytes.length,
    etag: etag(st),
    mime: mimeFor(name, sn.binary),
    ...(language_id ? { language_id } : {}),
    ...(sn.binary ? {} : { line_count: countLines(bytes, sn.charset!) }),
    is_binary: sn.binary,
  };
}
