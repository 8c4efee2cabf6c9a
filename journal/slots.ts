import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Level } from 'level';
import { ulid } from 'ulid';

export type Db = Level<string, any>;

/** One LevelDB directory under `<home>/db/`; the process that holds its lock owns its sessions. */
export interface Slot {
  id: string;
  dir: string;
  db: Db;
}

export function slotsDir(home: string): string {
  return path.join(home, 'db');
}

function isLockError(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === 'LEVEL_LOCKED' || e?.cause?.code === 'LEVEL_LOCKED';
}

/** Tries to open (and lock) a slot; returns null when another process holds it. */
export async function tryOpenSlot(dir: string, create = true): Promise<Slot | null> {
  const db: Db = new Level<string, any>(dir, { valueEncoding: 'json', createIfMissing: create });
  try {
    await db.open();
  } catch (err) {
    if (isLockError(err)) return null;
    if (!create) return null;
    throw err;
  }
  return { id: path.basename(dir), dir, db };
}

export async function listSlotDirs(home: string): Promise<string[]> {
  const root = slotsDir(home);
  await mkdir(root, { recursive: true });
  const entries = await readdir(root, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => path.join(root, e.name)).sort();
}

const CREATE_TRIES = 10;

/**
 * Creates and locks a new slot. Another daemon's reconcile may see the new
 * directory and lock it (to adopt it) between our mkdir and our lock: then
 * that directory is theirs and we try a fresh name. `newId` names it (a ULID: slots sort by age).
 */
export async function createSlot(home: string, newId: () => string = ulid): Promise<Slot> {
  for (let i = 0; i < CREATE_TRIES; i++) {
    const dir = path.join(slotsDir(home), newId());
    const slot = await tryOpenSlot(dir);
    if (slot) return slot;
  }
  throw new Error(`cannot lock a new journal slot under ${slotsDir(home)}`);
}

/**
 * Opens every slot this process can lock. The first becomes the primary (all new
 * writes go there); the rest are returned for import. Locked slots belong to
 * other running daemons.
 */
export async function claimSlots(home: string, newId?: () => string): Promise<{ primary: Slot; adoptable: Slot[]; foreign: string[] }> {
  const dirs = await listSlotDirs(home);
  const opened: Slot[] = [];
  const foreign: string[] = [];
  for (const dir of dirs) {
    const slot = await tryOpenSlot(dir);
    if (slot) opened.push(slot);
    else foreign.push(dir);
  }
  const primary = opened.shift() ?? (await createSlot(home, newId));
  return { primary, adoptable: opened, foreign };
}

export async function destroySlot(slot: Slot): Promise<void> {
  await slot.db.close();
  await rm(slot.dir, { recursive: true, force: true });
  await rm(exportFile(path.dirname(slot.dir), slot.id), { force: true });
}

/** Where the daemon holding a slot publishes its session index for the others. */
export function exportFile(slotsRoot: string, slotId: string): string {
  return path.join(slotsRoot, `${slotId}.export.json`);
}
