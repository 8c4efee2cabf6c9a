import { Journal } from '../../journal/journal.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { createProjections } from '../app/projections.ts';
import { dropSearchIndexes } from '../search/service.ts';
import { openFreeSlots, openUrlJournal, runningDaemon } from './offline.ts';

/**
 * `svc-code reindex`: rebuilds every projection of every journal slot of the home from seq 0, offline (the
 * same rebuild as `serve --rebuild-projections`). Refuses while a daemon runs on the home. The search index's
 * snapshots are dropped: the next daemon builds it from the journal (docs/search.md "Persistence").
 */
export async function reindexCommand(home: string): Promise<number> {
  if (await runningDaemon(home)) {
    process.stderr.write('a daemon is running on this home: stop it first (or restart it with --rebuild-projections)\n');
    return 1;
  }
  const started = performance.now();
  const shared = await openUrlJournal(home);
  if (shared) {
    // PostgreSQL (docs/journal.md): the database's projections, rebuilt once; no LevelDB slot is opened.
    await dropSearchIndexes(home);
    const report = [await rebuildAll(shared.id, shared.journal)];
    process.stdout.write(`${JSON.stringify({ slots: report, ms: Math.round(performance.now() - started) })}\n`);
    return 0;
  }
  const { slots, locked } = await openFreeSlots(home);
  if (locked) {
    for (const slot of slots) await slot.db.close();
    process.stderr.write(`${locked} journal slot(s) are locked by another process\n`);
    return 1;
  }
  await dropSearchIndexes(home);
  const report: Array<{ slot: string; streams: number; projections: string[] }> = [];
  for (const slot of slots) {
    const journal = new Journal({ db: slot.db });
    try {
      await journal.load();
    } catch (err) {
      await slot.db.close();
      throw err;
    }
    report.push(await rebuildAll(slot.id, journal));
  }
  process.stdout.write(`${JSON.stringify({ slots: report, ms: Math.round(performance.now() - started) })}\n`);
  return 0;
}

/** Every projection of `journal` rebuilt from seq 0; the journal is closed after. */
async function rebuildAll(id: string, journal: Journal): Promise<{ slot: string; streams: number; projections: string[] }> {
  try {
    const projections = createProjections(journal);
    await new ProjectionRunner(journal, projections.all).rebuild(projections.all);
    await journal.drain();
    return { slot: id, streams: journal.allHeads().size, projections: projections.all.map((p) => p.name) };
  } finally {
    await journal.close();
  }
}
