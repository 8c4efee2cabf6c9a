import { readFile, rm } from 'node:fs/promises';
import { searchIndexDir } from '../search/index-dir.ts';
import path from 'node:path';
import { Journal } from '../../journal/journal.ts';
import { GLOBAL_STREAM, GUI_STREAM } from '../../journal/keys.ts';
import { destroySlot, exportFile, listSlotDirs, slotsDir, tryOpenSlot, type Slot } from '../../journal/slots.ts';
import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRecord, WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import { liveInstances, writeFileAtomic, type InstanceRecord } from './home.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';

/** What a daemon publishes about the slot it holds (docs/multi-instance.md). */
export interface SlotExport {
  server_id: string;
  base_url: string;
  written_at: string;
  sessions: SessionRecord[];
  workspaces: WorkspaceRecord[];
}

interface Deps {
  home: string;
  serverId: string;
  primary: Pick<Slot, 'id' | 'dir'>;
  journal: Journal;
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
  clock: Clock;
  log: Logger;
}

/**
 * Coexistence of several daemons on one home. Each daemon locks one LevelDB
 * slot under `<home>/db/` and owns the sessions in it. Every reconcile tick it
 * publishes its index (`<slot>.export.json`), adopts slots whose owner has
 * stopped (their streams are copied into its own slot), and shows the sessions
 * of slots still locked by others as read-only `foreign` records.
 */
export class Instances {
  private others = new Map<string, InstanceRecord>();
  private foreignBySlot = new Map<string, Set<string>>();
  private dirty = true;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private baseUrl = '';

  constructor(private readonly deps: Deps) {}

  /** Subscriber of committed events (src/app/subscribers.ts): the next reconcile republishes the export. */
  readonly onCommitted = (): void => {
    this.dirty = true;
  };

  baseUrlOf(serverId: string | undefined): string | null {
    return (serverId && this.others.get(serverId)?.base_url) || null;
  }

  /** Starts the periodic reconcile (interval in ms; 0 disables). */
  start(baseUrl: string, intervalMs: number): void {
    this.baseUrl = baseUrl;
    if (intervalMs > 0) {
      this.timer = setInterval(() => void this.reconcile(), intervalMs);
      this.timer.unref();
    }
  }

  /**
   * One reconcile pass; passes never overlap. None on the PostgreSQL journal (a primary with no directory): its
   * daemons share one database, and LevelDB slots left in the home are neither adopted into it nor shown
   * (docs/journal.md "PostgreSQL").
   */
  reconcile(): Promise<void> {
    if (!this.deps.primary.dir) return Promise.resolve();
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async pass(): Promise<void> {
    const { home, primary, log } = this.deps;
    try {
      this.others = new Map((await liveInstances(home)).filter((r) => r.server_id !== this.deps.serverId).map((r) => [r.server_id, r]));
      if (this.dirty) await this.publish();
      for (const dir of await listSlotDirs(home)) {
        if (dir === primary.dir) continue;
        const slot = await tryOpenSlot(dir, false);
        if (slot) await this.adopt(slot);
        else await this.showForeign(path.basename(dir));
      }
    } catch (err) {
      log.warn({ err }, 'instance reconcile failed; will retry');
    }
  }

  private async publish(): Promise<void> {
    this.dirty = false;
    const { sessions, workspaces, primary, serverId } = this.deps;
    const data: SlotExport = {
      server_id: serverId,
      base_url: this.baseUrl,
      written_at: this.deps.clock.now().toISOString(),
      sessions: [...sessions.all()].filter((s) => !s.foreign),
      workspaces: workspaces.all(),
    };
    await writeFileAtomic(exportFile(slotsDir(this.deps.home), primary.id), JSON.stringify(data));
  }

  private async showForeign(slotId: string): Promise<void> {
    let data: SlotExport;
    try {
      data = JSON.parse(await readFile(exportFile(slotsDir(this.deps.home), slotId), 'utf8')) as SlotExport;
    } catch {
      return; // not published yet
    }
    const seen = new Set<string>();
    for (const w of data.workspaces) this.deps.workspaces.mergeForeign(w);
    for (const s of data.sessions) {
      const local = this.deps.sessions.get(s.id);
      if (local && !local.foreign) continue;
      seen.add(s.id);
      this.deps.sessions.upsert({ ...s, foreign: { server_id: data.server_id, slot: slotId } });
    }
    for (const id of this.foreignBySlot.get(slotId) ?? []) {
      if (!seen.has(id) && this.deps.sessions.get(id)?.foreign) this.deps.sessions.drop(id);
    }
    this.foreignBySlot.set(slotId, seen);
  }

  /** Copies a stopped daemon's slot into ours, then deletes it. */
  async adopt(slot: Slot): Promise<void> {
    await importSlot(this.deps.journal, slot, this.deps.log, this.deps.home);
    this.foreignBySlot.delete(slot.id);
    this.dirty = true;
  }
}

/** Imports every stream of `slot` into `journal` and removes the slot, with its search index. */
export async function importSlot(journal: Journal, slot: Slot, log: Logger, home: string): Promise<void> {
  const source = new Journal({ db: slot.db });
  await source.load();
  let sessions = 0;
  for (const [stream, head] of source.allHeads()) {
    const records = await source.readStream(stream);
    if (stream === GLOBAL_STREAM || stream === GUI_STREAM) {
      await journal.appendImported(stream, records);
    } else if (!journal.hasStream(stream)) {
      await journal.importStream(stream, head, records);
      sessions += 1;
    }
  }
  await destroySlot(slot);
  // The slot's search index lives beside the slots (docs/search.md "Persistence"): the adopted streams are indexed anew.
  await rm(searchIndexDir(home, slot.id), { recursive: true, force: true });
  log.info({ slot: slot.id, sessions }, 'adopted journal slot of a stopped daemon');
}
