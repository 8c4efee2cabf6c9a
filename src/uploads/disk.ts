import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from '../lib/process.ts';
import { FILE_ID_RE, type UploadMeta } from './types.ts';

/*
 * On-disk layout under <home>/uploads:
 *   <file_id>/content, <file_id>/meta.json   one directory per upload
 *   .incoming/<pid>-<ulid>/                 this server's scratch space: multipart temp files,
 *                                           uploads being staged, uploads being discarded
 * An upload is assembled in scratch and renamed into place whole, and removed by
 * renaming it out first, so another daemon on the same home never sees half of one.
 */

const CONTENT = 'content';
const META = 'meta.json';

export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function parseMeta(id: string, raw: unknown): UploadMeta | undefined {
  const m = raw as Partial<UploadMeta> | null;
  if (!m || m.id !== id || typeof m.name !== 'string' || typeof m.media_type !== 'string') return undefined;
  if (typeof m.size !== 'number' || typeof m.created_at !== 'string') return undefined;
  if (m.expires_at !== undefined && typeof m.expires_at !== 'string') return undefined;
  const meta: UploadMeta = { id, name: m.name, media_type: m.media_type, size: m.size, created_at: m.created_at };
  if (m.expires_at !== undefined) meta.expires_at = m.expires_at;
  return meta;
}

export class UploadDisk {
  readonly root: string;
  /** Scratch directory of this server; multipart temp files go below it. */
  readonly scratch: string;
  private readonly incoming: string;

  /** `scratchId` (a fresh ULID) names this server's scratch directory beside its pid. */
  constructor(home: string, scratchId: string, private readonly pid = process.pid) {
    this.root = path.join(home, 'uploads');
    this.incoming = path.join(this.root, '.incoming');
    this.scratch = path.join(this.incoming, `${pid}-${scratchId}`);
  }

  contentPath(id: string): string {
    return path.join(this.root, id, CONTENT);
  }

  /** Creates this server's scratch; scratch left by dead processes (a crash mid-upload) is removed. */
  async prepare(): Promise<void> {
    await mkdir(this.scratch, { recursive: true });
    for (const name of await readdir(this.incoming)) {
      const pid = Number(name.split('-')[0]);
      if (Number.isInteger(pid) && pid !== this.pid && !processAlive(pid)) {
        await rm(path.join(this.incoming, name), { recursive: true, force: true });
      }
    }
  }

  async dispose(): Promise<void> {
    await rm(this.scratch, { recursive: true, force: true });
  }

  /** undefined when the upload does not exist (or its meta.json is unreadable). */
  async readMeta(id: string): Promise<UploadMeta | undefined> {
    let text: string;
    try {
      text = await readFile(path.join(this.root, id, META), 'utf8');
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    try {
      return parseMeta(id, JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  /** Every upload with a valid meta.json. */
  async loadAll(): Promise<UploadMeta[]> {
    const out: UploadMeta[] = [];
    for (const name of await readdir(this.root)) {
      if (!FILE_ID_RE.test(name)) continue;
      const meta = await this.readMeta(name);
      if (meta) out.push(meta);
    }
    return out;
  }

  /** Moves `tempFile` (inside scratch) into place as the upload's content, with its meta.json. */
  async commit(tempFile: string, meta: UploadMeta): Promise<void> {
    const stage = path.join(this.scratch, `${meta.id}.stage`);
    await mkdir(stage);
    try {
      await rename(tempFile, path.join(stage, CONTENT));
      await writeFile(path.join(stage, META), JSON.stringify(meta));
      await rename(stage, path.join(this.root, meta.id));
    } catch (err) {
      await rm(stage, { recursive: true, force: true });
      throw err;
    }
  }

  /** Removes an upload; false when it was already gone. */
  async discard(id: string): Promise<boolean> {
    const trash = path.join(this.scratch, `${id}.trash`);
    try {
      await rename(path.join(this.root, id), trash);
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
    await rm(trash, { recursive: true, force: true });
    return true;
  }
}
