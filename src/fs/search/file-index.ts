import { spawn } from 'node:child_process';
import { rgPath } from '@vscode/ripgrep';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { childEnv } from '../../lib/child-env.ts';

/** Past this many files the listing stops and the index is marked capped. */
export const INDEX_MAX_FILES = 500_000;
/** An index build that takes longer fails with 41305. */
export const INDEX_TIMEOUT_MS = 30_000;

/**
 * Every file of a root (relative `/`-separated paths, as `rg --files` lists
 * them: hidden files included, `.git` excluded, symlinks not followed) plus the
 * directories that contain them. Parallel arrays, directories first and sorted
 * (a parent before its children): a scan touches only what it needs.
 */
export interface FileIndex {
  root: string;
  followGitignore: boolean;
  paths: string[];
  /** Lower-cased paths, index for index the same length as `paths`. */
  lower: string[];
  /** Index in the path where the basename starts. */
  base: Int32Array;
  /** Entry index of the parent directory, -1 at the top level. */
  parent: Int32Array;
  /** charMask of the basename. */
  mask: Uint32Array;
  /** Entries [0, dirCount) are directories, the rest files. */
  dirCount: number;
  /** 1 when some segment starts with a dot. */
  hidden: Uint8Array;
  /** The listing stopped at INDEX_MAX_FILES. */
  capped: boolean;
  builtAt: number;
}

/**
 * A 32-bit summary of which characters occur: a-z one bit each, digits four
 * buckets, `/` its own bit (never in a basename), everything else one bit.
 * `(need & ~mask) !== 0` proves a string cannot contain the needed characters.
 */
export function charBit(c: number): number {
  if (c >= 97 && c <= 122) return 1 << (c - 97);
  if (c >= 48 && c <= 57) return 1 << (26 + ((c - 48) & 3));
  if (c === 47) return 1 << 30;
  return 1 << 31;
}

export function charMask(s: string, from = 0): number {
  let m = 0;
  for (let i = from; i < s.length; i++) m |= charBit(s.charCodeAt(i));
  return m >>> 0;
}

/** Lower case that keeps every index in place (a few characters grow when lower-cased; those stay as they are). */
function lowerInPlace(p: string): string {
  const l = p.toLowerCase();
  if (l.length === p.length) return l;
  let out = '';
  for (const ch of p) {
    const lc = ch.toLowerCase();
    out += lc.length === ch.length ? lc : ch;
  }
  return out;
}

/** Lists the files of `root` with ripgrep; directories are derived from the file paths (empty ones are absent). */
export async function buildFileIndex(root: string, followGitignore: boolean, now: number): Promise<FileIndex> {
  const { files, capped } = await listFiles(root, followGitignore);
  const dirSet = new Set<string>();
  for (const f of files) {
    for (let i = f.lastIndexOf('/'); i > 0; i = f.lastIndexOf('/', i - 1)) {
      const d = f.slice(0, i);
      if (dirSet.has(d)) break;
      dirSet.add(d);
    }
  }
  const dirs = [...dirSet].sort();
  const dirIndex = new Map(dirs.map((d, i) => [d, i]));
  const paths = dirs.concat(files);
  const n = paths.length;
  const idx: FileIndex = {
    root, followGitignore, paths, capped, builtAt: now, dirCount: dirs.length,
    lower: new Array<string>(n), base: new Int32Array(n), parent: new Int32Array(n), mask: new Uint32Array(n), hidden: new Uint8Array(n),
  };
  for (let i = 0; i < n; i++) {
    const p = paths[i];
    const slash = p.lastIndexOf('/');
    idx.lower[i] = lowerInPlace(p);
    idx.base[i] = slash + 1;
    idx.parent[i] = slash < 0 ? -1 : dirIndex.get(p.slice(0, slash))!;
    idx.mask[i] = charMask(idx.lower[i], slash + 1);
    idx.hidden[i] = p.startsWith('.') || p.includes('/.') ? 1 : 0;
  }
  return idx;
}

function rgFilesArgs(followGitignore: boolean): string[] {
  const args = ['--files', '--no-config', '--hidden', '--no-require-git', '--null', '--glob', '!.git'];
  if (!followGitignore) args.push('--no-ignore');
  return args;
}

function listFiles(root: string, followGitignore: boolean): Promise<{ files: string[]; capped: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, rgFilesArgs(followGitignore), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
    const files: string[] = [];
    let rest = '';
    let capped = false;
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new ApiError(Codes.SEARCH_TIMEOUT, `file index of ${root} not built within ${INDEX_TIMEOUT_MS} ms`, { details: { timeout_ms: INDEX_TIMEOUT_MS } }));
    }, INDEX_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (capped) return;
      const parts = (rest + chunk).split('\0');
      rest = parts.pop()!;
      for (const p of parts) files.push(p.startsWith('./') ? p.slice(2) : p);
      if (files.length >= INDEX_MAX_FILES) {
        capped = true;
        files.length = INDEX_MAX_FILES;
        child.kill();
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr = (stderr + d).slice(-4096)));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      // 1 = no files at all; 2 = some entries unreadable (permissions): the listing is still usable.
      if (capped || code === 0 || code === 1 || (code === 2 && files.length > 0)) return resolve({ files, capped });
      reject(new Error(`rg --files failed in ${root} (exit ${code}): ${stderr.trim()}`));
    });
  });
}
