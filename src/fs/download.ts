import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { validationError } from '../../protocol/errors.ts';
import { fsError, pathNotFound } from './errors.ts';
import { fsSession, resolvePath, type SessionFsDeps } from './scope.ts';

/**
 * The file behind GET .../fs/{path}:download, proven readable. A directory
 * or another non-regular file is 40409 (the spec lists no 40906 here).
 */
export async function downloadFile(deps: SessionFsDeps, sessionId: string, runtimeId: string | undefined, given: string): Promise<{ abs: string; st: Stats }> {
  const s = fsSession(deps, sessionId, runtimeId);
  if (!given.trim()) throw validationError([{ field: 'path', message: 'must not be empty' }]);
  const p = await resolvePath(deps, s, given);
  let st: Stats;
  try {
    st = await stat(p.abs);
    if (!st.isFile()) throw pathNotFound(given, st.isDirectory() ? 'is a directory, not a file' : 'is not a regular file');
    await (await open(p.abs, 'r')).close();
  } catch (err) {
    fsError(err, given);
  }
  return { abs: p.abs, st };
}
