import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../lib/fs-atomic.ts';
import { processAlive } from '../lib/process.ts';

export { writeFileAtomic };

/**
 * The access token: `given` (SVC_CODE_SERVER_TOKEN, settings.serverToken) when set, else `<home>/server.token`
 * (mode 0600), generated with 32 random bytes on first start.
 */
export async function loadOrCreateToken(home: string, given: string | undefined): Promise<string> {
  if (given) return given;
  const file = path.join(home, 'server.token');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing) {
      await chmod(file, 0o600);
      return existing;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  await mkdir(home, { recursive: true });
  await writeFileAtomic(file, `${token}\n`, 0o600);
  await chmod(file, 0o600);
  return token;
}

export interface InstanceRecord {
  server_id: string;
  pid: number;
  host: string;
  port: number;
  started_at: string;
  base_url: string;
  journal_slot: string;
}

export function instancesDir(home: string): string {
  return path.join(home, 'server', 'instances');
}

/** Lists registered instances, removing the entries of processes that are gone. */
export async function liveInstances(home: string): Promise<InstanceRecord[]> {
  const dir = instancesDir(home);
  await mkdir(dir, { recursive: true });
  const out: InstanceRecord[] = [];
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    try {
      const rec = JSON.parse(await readFile(file, 'utf8')) as InstanceRecord;
      if (rec.pid !== process.pid && !processAlive(rec.pid)) await rm(file, { force: true });
      else out.push(rec);
    } catch {
      await rm(file, { force: true });
    }
  }
  return out;
}

export async function registerInstance(home: string, rec: InstanceRecord): Promise<string> {
  const file = path.join(instancesDir(home), `${rec.server_id}.json`);
  await mkdir(instancesDir(home), { recursive: true });
  await writeFileAtomic(file, JSON.stringify(rec, null, 2));
  return file;
}
