import type { Stats } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import path from 'node:path';
import etag from 'etag';
import { binaryByName, languageIdFor, mimeByName, mimeFor, sniff, SNIFF_BYTES } from './text.ts';

export type EntryKind = 'file' | 'directory' | 'symlink';
export type GitFileStatus = 'clean' | 'modified' | 'added' | 'deleted' | 'renamed' | 'untracked' | 'ignored' | 'conflicted';

/** Part B "File entry object". */
export interface FileEntry {
  path: string;
  name: string;
  kind: EntryKind;
  size?: number;
  modified_at: string;
  etag?: string;
  mime?: string;
  language_id?: string;
  is_binary?: boolean;
  is_symlink_to?: string;
  git_status?: GitFileStatus;
  child_count?: number;
}

/** `/`-separated form of a relative path (absolute paths of additional dirs stay absolute). */
export function toWire(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** Wire path of a child of the directory at wire path `parent`. */
export function childPath(parent: string, name: string): string {
  return parent === '.' ? name : parent.endsWith('/') ? parent + name : `${parent}/${name}`;
}

/** First bytes of a regular file. */
export async function readHead(abs: string, bytes = SNIFF_BYTES): Promise<Buffer> {
  const fh = await open(abs, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export interface DescribeOptions {
  /** Read the first 8 KiB to decide is_binary (stat); otherwise guess from the extension (list). */
  sniff: boolean;
  /** lstat result when the caller has it already. */
  stats?: Stats;
  /** Name to report (the root of a workspace is `.` on the wire but has a real base name). */
  name?: string;
}

/**
 * The entry of one path, from lstat: a symlink is described as the link
 * itself (kind `symlink`, `is_symlink_to` its target as stored, the link's own
 * mtime; no size/etag/mime), because its target may lie outside the
 * workspace. Sockets, FIFOs and devices are reported as kind `file` without
 * etag, mime or is_binary (they are never opened).
 */
export async function describe(abs: string, wirePath: string, opts: DescribeOptions): Promise<FileEntry> {
  const st = opts.stats ?? (await lstat(abs));
  const name = opts.name ?? path.basename(abs);
  const base = { path: wirePath, name, modified_at: st.mtime.toISOString() };
  if (st.isSymbolicLink()) return { ...base, kind: 'symlink', is_symlink_to: await readlink(abs) };
  if (st.isDirectory()) return { ...base, kind: 'directory' };
  if (!st.isFile()) return { ...base, kind: 'file', size: st.size };
  const language_id = languageIdFor(name);
  let is_binary: boolean | undefined;
  let mime: string | undefined;
  if (opts.sniff) {
    is_binary = sniff(await readHead(abs)).binary;
    mime = mimeFor(name, is_binary);
  } else {
    is_binary = binaryByName(name);
    mime = mimeByName(name);
  }
  return {
    ...base, kind: 'file', size: st.size, etag: etag(st),
    ...(mime ? { mime } : {}), ...(language_id ? { language_id } : {}), ...(is_binary !== undefined ? { is_binary } : {}),
  };
}
