import { Journal } from '../../journal/journal.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { createProjections } from '../app/projections.ts';
import { dropSearchIndexes } from '../search/service.ts';
import { openFreeSlots, runningDaemon } from './offline.ts';

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
  const { slots, locked } = await openFreeSlots(home);
  if (locked) {
    for (const slot of slots) await slot.db.close();
    process.stderr.write(`${locked} journal slot(s) are locked by another process\n`);
    return 1;
  }
  const started = performance.now();
  await dropSearchIndexes(home);
  const report: Array<{ slot: string; streams: number; projections: string[] }> = [];
  for (const slot of slots) {
    try {
      const journal = new Journal({ db: slot.db });
      await journal.load();
      const projections = createProjections(journal);
      await new ProjectionRunner(journal, projections.all).rebuild(projections.all);
      await journal.drain();
      report.push({ slot: slot.id, streams: journal.allHeads().size, projections: projections.all.map((p) => p.name) });
    } finally {
      await slot.db.close();
    }
  }
  process.stdout.write(`${JSON.stringify({ slots: report, ms: Math.round(performance.now() - started) })}\n`);
  return 0;
}
