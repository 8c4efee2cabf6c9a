import { mkdir } from 'node:fs/promises';
import { errno, fsError, pathNotFound } from './errors.ts';
import { fsSession, resolvePath, type SessionFsDeps } from './scope.ts';
import { statPath } from './stat.ts';

/**
 * POST fs:mkdir. Non-recursive: 40409 when the parent is missing (or is not a
 * directory), 40919 when the path exists. Recursive: like `mkdir -p` (an
 * existing directory is fine; an existing file is still 40919).
 */
export async function fsMkdir(deps: SessionFsDeps, sessionId: string, body: { runtime_id?: string; path: string; recursive?: boolean }) {
  const s = fsSession(deps, sessionId, body.runtime_id);
  const p = await resolvePath(deps, s, body.path);
  try {
    await mkdir(p.abs, { recursive: body.recursive ?? false });
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw pathNotFound(body.path, 'parent directory not found');
    fsError(err, body.path);
  }
  return statPath(deps, s, body.path);
}
