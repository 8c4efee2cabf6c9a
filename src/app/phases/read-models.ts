import { CommitWaits } from '../../../journal/commit-waits.ts';
import type { WireContext } from '../../../protocol/events/wire.ts';
import { startProjections } from '../journal-boot.ts';
import type { Projections } from '../projections.ts';
import type { Storage } from './storage.ts';

/** Phase 2: the journal's read models, and the two readers built on them. */
export interface ReadModels extends Omit<Projections, 'all'> {
  /** What v1 frames read besides their events: their place in their agent's turns, the session's cwd (spec/clients.md F). */
  wire: WireContext;
  /** Waits for a stream's events to be on disk (reads of on-disk records bounded by the head). */
  commits: CommitWaits;
}

/**
 * The projections loaded (or rebuilt, `--rebuild-projections`) and kept up to date in each append's batch; the
 * slots of stopped daemons adopted into the primary (src/app/journal-boot.ts).
 */
export async function startReadModels(storage: Pick<Storage, 'home' | 'opened' | 'log' | 'journal'>, o: { rebuild?: boolean }): Promise<ReadModels> {
  const projections = await startProjections(storage.home, storage.opened, { log: storage.log, rebuild: o.rebuild });
  const { all: _all, ...reads } = projections;
  const { sessions, turnIndex } = reads;
  const wire: WireContext = { place: (...at) => turnIndex.place(...at), cwd: (id) => sessions.get(id)?.cwd };
  return { ...reads, wire, commits: new CommitWaits(storage.journal) };
}
