import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../lib/fs-atomic.ts';
import type { Region } from './settings.ts';

/**
 * A stored OAuth credential (`<home>/credentials/<key>.json`, mode 0600). It never
 * goes into config.toml: the provider entry only references it by `{storage, key}`.
 */
export interface StoredCredential {
  provider: string;
  host: string;
  client_id: string;
  region: Region;
  access_token: string;
  refresh_token?: string;
  token_type: string;
  scope?: string;
  /** ISO 8601; absent when the host gave no `expires_in`. */
  expires_at?: string;
  obtained_at: string;
  /** Set when the host rejected a refresh: `revoked` (invalid_grant) or `expired` (expired_token, or nothing to refresh with). */
  state?: 'expired' | 'revoked';
}

export function credentialsDir(home: string): string {
  return path.join(home, 'credentials');
}

export function credentialFile(home: string, key: string): string {
  return path.join(credentialsDir(home), `${key}.json`);
}

export async function readCredential(home: string, key: string): Promise<StoredCredential | undefined> {
  let text: string;
  try {
    text = await readFile(credentialFile(home, key), 'utf8');
  } catch (err) {
    if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw err;
  }
  try {
    const c = JSON.parse(text) as StoredCredential;
    return typeof c.access_token === 'string' ? c : undefined;
  } catch {
    // A corrupt file holds no usable credential; the next login replaces it.
    return undefined;
  }
}

export async function writeCredential(home: string, key: string, c: StoredCredential): Promise<void> {
  await mkdir(credentialsDir(home), { recursive: true, mode: 0o700 });
  const file = credentialFile(home, key);
  await writeFileAtomic(file, `${JSON.stringify(c, null, 2)}\n`, 0o600);
  // writeFile's mode is filtered by the umask; the credential must be owner-only whatever the umask.
  await chmod(file, 0o600);
}

export async function deleteCredential(home: string, key: string): Promise<void> {
  await rm(credentialFile(home, key), { force: true });
}
