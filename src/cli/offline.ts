import { liveInstances, loadOrCreateToken, type InstanceRecord } from '../app/home.ts';
import { readSettings } from '../app/settings.ts';
import { listSlotDirs, tryOpenSlot, type Slot } from '../../journal/slots.ts';
import pino from 'pino';
import type { Journal } from '../../journal/journal.ts';
import { openHomeJournal } from '../app/journal-boot.ts';
import { systemClock } from '../lib/clock.ts';
import { ulidIds } from '../lib/ids.ts';

/** The daemon serving this home, if one runs (commands that need the journal talk to it instead). */
export async function runningDaemon(home: string): Promise<{ instance: InstanceRecord; token: string } | undefined> {
  const [instance] = await liveInstances(home);
  if (!instance) return undefined;
  return { instance, token: await loadOrCreateToken(home, readSettings(process.env).serverToken) };
}

/** Opens every journal slot of the home that no daemon holds; `locked` counts the others. */
export async function openFreeSlots(home: string): Promise<{ slots: Slot[]; locked: number }> {
  const slots: Slot[] = [];
  let locked = 0;
  for (const dir of await listSlotDirs(home)) {
    const slot = await tryOpenSlot(dir, false);
    if (slot) slots.push(slot);
    else locked += 1;
  }
  return { slots, locked };
}

/**
 * The PostgreSQL journal of `SVC_CODE_JOURNAL_URL` (docs/journal.md), when set: opened (migrated, heads loaded) for
 * an offline command, with its place id; the caller closes the journal. Unset: undefined (the home's LevelDB slots).
 * The database is shared with running daemons, so reading it needs no daemon's export.
 */
export async function openUrlJournal(home: string): Promise<{ journal: Journal; id: string } | undefined> {
  const url = readSettings(process.env).journalUrl;
  if (!url) return undefined;
  const log = pino({ level: 'warn' }, pino.destination(2));
  const opened = await openHomeJournal(home, { ids: ulidIds(), clock: systemClock, fsync: false, url, log });
  return { journal: opened.journal, id: opened.primary.id };
}
