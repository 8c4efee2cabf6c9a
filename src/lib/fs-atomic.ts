import { randomBytes } from 'node:crypto';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes via a temp file in the same directory and a rename, so readers never see half a file.
 * `fsync`: the data is on disk before the rename, and the rename is on disk when this resolves
 * (for files a person edits, which a crash must not leave empty).
 */
export async function writeFileAtomic(file: string, text: string, mode = 0o600, opts: { fsync?: boolean } = {}): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    if (opts.fsync) await writeSynced(tmp, text, mode);
    else await writeFile(tmp, text, { mode });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true, recursive: true }).catch(() => undefined);
    throw err;
  }
  if (opts.fsync) await syncDir(path.dirname(file));
}

async function writeSynced(file: string, text: string, mode: number): Promise<void> {
  const fh = await open(file, 'wx', mode);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
