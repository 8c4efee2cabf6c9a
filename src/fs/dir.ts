import { stat } from 'node:fs/promises';
import { fsError, notADirectory } from './errors.ts';

/** Follows symlinks; 40409 when `abs` is missing or not a directory, 40411 when it cannot be stat-ed. */
export async function assertDirectory(abs: string, given: string): Promise<void> {
  let isDir: boolean;
  try {
    isDir = (await stat(abs)).isDirectory();
  } catch (err) {
    fsError(err, given);
  }
  if (!isDir) throw notADirectory(given);
}
