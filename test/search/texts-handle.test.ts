import { readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { serverFor } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { populate, ready } from './helpers.ts';

/** How many of this process's file descriptors are open on `file` (the search index's texts file). */
function openOn(file: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(path.join('/proc/self/fd', fd)).startsWith(file)) n += 1;
    } catch {
      // Closed meanwhile (the readdir's own descriptor).
    }
  }
  return n;
}

test('the texts file is held once: not leaked by a worker replaced after a build, by a worker that dies, or by a stopped server', async (t) => {
  const s = await serverFor(t);
  await populate(s);
  await ready(s);
  const texts = path.join(s.search.indexDir!, 'texts.bin');
  t.is(openOn(texts), 1);
  // A build from seq 0 in a worker ends by replacing that worker with one that reads the snapshot.
  const s2 = await s.restart({ rebuildProjections: true });
  t.teardown(() => s2.stop());
  await ready(s2);
  t.is(s2.search.lastStart?.from, 'journal');
  t.is(openOn(texts), 1, 'the first server\'s worker and the replaced worker closed theirs');
  await s2.search.crashWorker();
  await until(() => s2.search.kind === 'in-process' || undefined, 30_000, 'fallback in place');
  await ready(s2, { degraded: true });
  t.is(openOn(texts), 1, 'the dead worker\'s descriptor was closed, the in-process index holds its own');
  await s2.server.close();
  t.is(openOn(texts), 0);
});
