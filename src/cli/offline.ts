import { liveInstances, loadOrCreateToken, type InstanceRecord } from '../app/home.ts';
import { readSettings } from '../app/settings.ts';
import { listSlotDirs, tryOpenSlot, type Slot } from '../../journal/slots.ts';

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
