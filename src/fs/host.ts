import type { Stats } from 'node:fs';
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validationError } from '../../protocol/errors.ts';
import type { SessionLookup } from '../sessions/lookup.ts';
import { listWorkspaces } from '../workspaces/commands.ts';
import { errno, fsError, isADirectory, notADirectory, pathNotFound } from './errors.ts';
import { mapLimit } from './pool.ts';

/** Host-wide file routes (no session): any path the daemon's user can reach, gated only by the token. */

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

export interface BrowseEntry {
  name: string;
  path: string;
  is_dir: true;
}

/**
 * GET fs:browse: the sub-directories of a directory (symlinks to directories
 * included, hidden ones too), sorted by name. `parent` is null at `/`.
 */
export async function browse(given: string | undefined) {
  const dir = path.resolve(given ?? os.homedir());
  let dirents;
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (errno(err) === 'ENOTDIR') throw notADirectory(dir);
    fsError(err, dir);
  }
  const isDir = await mapLimit(dirents, 32, async (d) => {
    if (d.isDirectory()) return true;
    if (!d.isSymbolicLink()) return false;
    return stat(path.join(dir, d.name)).then((s) => s.isDirectory(), () => false);
  });
  const entries: BrowseEntry[] = dirents
    .filter((_, i) => isDir[i])
    .map((d) => ({ name: d.name, path: path.join(dir, d.name), is_dir: true as const }))
    .sort((a, b) => collator.compare(a.name, b.name) || (a.name < b.name ? -1 : 1));
  const parent = path.dirname(dir);
  return { path: dir, parent: parent === dir ? null : parent, entries };
}

/** GET fs:home: the home directory and workspace roots, most recently opened first. */
export function home(deps: SessionLookup) {
  return { home: os.homedir(), recent_roots: listWorkspaces(deps).items.map((w) => w.root) };
}

/**
 * The file behind GET fs:content, proven readable: 40409 missing, 40906 a
 * directory, 40001 another non-regular file, 40411 not readable (the open is
 * tried here so a denial is an envelope, not a broken stream).
 */
export async function contentFile(given: string): Promise<{ abs: string; st: Stats }> {
  const abs = path.resolve(given);
  let st: Stats;
  try {
    st = await stat(abs);
    if (st.isDirectory()) throw isADirectory(abs);
    if (!st.isFile()) throw validationError([{ field: 'path', message: 'not a regular file' }]);
    await (await open(abs, 'r')).close();
  } catch (err) {
    fsError(err, abs);
  }
  return { abs, st };
}

/** POST fs:mkdir (host): non-recursive; 40409 parent missing, 40919 exists, 40411 denied. */
export async function hostMkdir(given: string) {
  const abs = path.resolve(given);
  try {
    await mkdir(abs);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw pathNotFound(abs, 'parent directory not found');
    fsError(err, abs);
  }
  return { path: abs };
}
