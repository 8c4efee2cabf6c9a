import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from './process.ts';

export interface LockOptions {
  /** How long to wait for another holder before giving up (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is taken over even if its process still exists (default 30 s; a holder keeps it for milliseconds). */
  staleMs?: number;
  /** Pause between attempts (default 20 ms, with jitter). */
  retryMs?: number;
}

/** What a lock file holds. */
export interface LockHolder {
  pid: number;
  /** When it was taken (ms since the epoch). */
  at: number;
  token: string;
}

/** The lock stayed held by another process for the whole wait. */
export class LockTimeoutError extends Error {
  constructor(readonly file: string, readonly holder: LockHolder | undefined, waitedMs: number) {
    super(holder
      ? `${file} is held by process ${holder.pid} since ${new Date(holder.at).toISOString()}; gave up after ${waitedMs} ms (remove the file if that process is not svc-code)`
      : `${file} stayed locked for ${waitedMs} ms; gave up`);
  }
}

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const h = JSON.parse(await readFile(file, 'utf8')) as LockHolder;
    return typeof h.pid === 'number' && typeof h.at === 'number' && typeof h.token === 'string' ? h : undefined;
  } catch {
    // Missing (released meanwhile) or half written (its holder is between open and write).
    return undefined;
  }
}

/**
 * Runs `fn` holding `lockFile`, a lock between the processes sharing a directory (two daemons on
 * one home). The file is created exclusively and holds `{pid, at, token}`; a holder whose process
 * is gone, or older than `staleMs`, is taken over; after `timeoutMs` of waiting, LockTimeoutError.
 */
export async function withFileLock<T>(lockFile: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const token = await acquire(lockFile, opts);
  try {
    return await fn();
  } finally {
    await release(lockFile, token);
  }
}

async function acquire(file: string, opts: LockOptions): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const staleMs = opts.staleMs ?? 30_000;
  const retryMs = opts.retryMs ?? 20;
  const started = Date.now();
  const token = `${process.pid}-${randomBytes(8).toString('hex')}`;
  for (;;) {
    if (await tryCreate(file, token)) return token;
    const holder = await readHolder(file);
    if (holder ? !processAlive(holder.pid) || Date.now() - holder.at > staleMs : await olderThan(file, staleMs)) {
      await takeOver(file, holder);
      continue;
    }
    const waited = Date.now() - started;
    if (waited >= timeoutMs) throw new LockTimeoutError(file, holder, waited);
    await sleep(retryMs + Math.floor(Math.random() * retryMs));
  }
}

async function tryCreate(file: string, token: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(JSON.stringify({ pid: process.pid, at: Date.now(), token } satisfies LockHolder));
  } finally {
    await fh.close();
  }
  return true;
}

async function olderThan(file: string, ms: number): Promise<boolean> {
  const st = await stat(file).catch(() => undefined);
  return st !== undefined && Date.now() - st.mtimeMs > ms;
}

/**
 * Moves a stale lock aside. Two waiters may both find it stale: the one whose rename moved a
 * fresh lock instead (taken by a third meanwhile) puts it back, unless the place is taken again.
 */
async function takeOver(file: string, stale: LockHolder | undefined): Promise<void> {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else moved it
    throw err;
  }
  const moved = await readHolder(aside);
  if (moved && stale && moved.token !== stale.token) {
    await link(aside, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  await rm(aside, { force: true });
}

/** Removes the lock if it is still ours (a holder taken over as stale must not remove its successor's). */
async function release(file: string, token: string): Promise<void> {
  const holder = await readHolder(file);
  if (holder?.token === token) await rm(file, { force: true });
}
