import { access, copyFile, readFile, writeFile, truncate } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { serverFor, startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { SNAPSHOT_VERSION } from '../../src/search/snapshot.ts';
import { answers, populate, ready, say, search } from './helpers.ts';

/** The index folder of the server's journal slot. */
const indexDir = (s: TestServer) => {
  const dir = s.search.indexDir!;
  if (path.dirname(dir) !== path.join(s.home, 'search')) throw new Error(`index dir ${dir} not under the home`);
  return dir;
};

async function restarted(t: ExecutionContext, s: TestServer, options = {}) {
  const again = await s.restart(options);
  t.teardown(() => again.stop());
  await ready(again);
  return again;
}

/** Stops the server, lets `change` alter its home's files, and starts another on the same home. */
async function reopened(t: ExecutionContext, s: TestServer, change: () => Promise<void>) {
  await s.server.close();
  await change();
  const again = await startTestServer({ home: s.home });
  t.teardown(() => again.stop());
  await ready(again);
  return again;
}

test('a restart reads the snapshot and catches up from the journal position it covers; answers equal a rebuild from seq 0', async (t) => {
  const s = await serverFor(t);
  const { a, b } = await populate(s);
  await ready(s);
  t.is(s.search.lastStart?.from, 'journal');
  const before = await answers(s);

  const s2 = await restarted(t, s);
  t.like(s2.search.lastStart, { from: 'snapshot', events: 0 });
  t.deepEqual(await answers(s2), before);
  // The snapshot as it is now, to bring back after more events: a snapshot behind the journal.
  const dir = indexDir(s2);
  await copyFile(path.join(dir, 'index.bin'), path.join(dir, '..', 'old-index.bin'));
  await say(s2, a, 'm8', 'user', 'the pangolin arrived late', 8);
  await say(s2, b, 'm9', 'assistant', 'zebra and pangolin, both in postgres', 9);
  await s2.post(`/api/v1/sessions/${b}/profile`, { title: 'Pangolin notes' });
  await until(async () => (await search(s2, { query: 'pangolin' })).data.items.length === 3 || undefined, 30_000, 'indexed');
  const later = await answers(s2, [{ query: 'pangolin' }, { query: 'pangolin', mode: 'literal' }, { query: 'zebra postgres' }, { query: 'zebra', op: 'OR' }]);

  const s3 = await restarted(t, s2);
  t.like(s3.search.lastStart, { from: 'snapshot', events: 0 });
  t.deepEqual(await answers(s3, [{ query: 'pangolin' }, { query: 'pangolin', mode: 'literal' }, { query: 'zebra postgres' }, { query: 'zebra', op: 'OR' }]), later);
  const s4 = await reopened(t, s3, () => copyFile(path.join(dir, '..', 'old-index.bin'), path.join(dir, 'index.bin')));
  const caught = s4.search.lastStart!;
  t.is(caught.from, 'snapshot');
  t.true(caught.events >= 3, `${caught.events} events caught up`);
  t.deepEqual(await answers(s4, [{ query: 'pangolin' }, { query: 'pangolin', mode: 'literal' }, { query: 'zebra postgres' }, { query: 'zebra', op: 'OR' }]), later);

  const s5 = await restarted(t, s4, { rebuildProjections: true });
  t.is(s5.search.lastStart?.from, 'journal');
  t.deepEqual(await answers(s5, [{ query: 'pangolin' }, { query: 'pangolin', mode: 'literal' }, { query: 'zebra postgres' }, { query: 'zebra', op: 'OR' }]), later);
});

test('a corrupt, truncated or foreign snapshot (or texts file) is rebuilt from the journal, without a crash', async (t) => {
  const s = await serverFor(t);
  await populate(s);
  await ready(s);
  const before = await answers(s);
  let current = s;
  const breakers: Array<[string, (dir: string) => Promise<void>]> = [
    ['a flipped byte', async (dir) => {
      const f = path.join(dir, 'index.bin');
      const bytes = await readFile(f);
      bytes[bytes.length - 3] ^= 0xff;
      await writeFile(f, bytes);
    }],
    ['a truncated index', (dir) => truncate(path.join(dir, 'index.bin'), 40)],
    ['another version', async (dir) => {
      const f = path.join(dir, 'index.bin');
      const bytes = await readFile(f, 'latin1');
      // The current version's snapshot made an older one (as if written before the layout changed).
      if (!bytes.includes(`{"v":${SNAPSHOT_VERSION},`)) throw new Error('the snapshot does not start its header with its version');
      await writeFile(f, bytes.replace(`{"v":${SNAPSHOT_VERSION},`, `{"v":${SNAPSHOT_VERSION - 1},`), 'latin1');
    }],
    ['garbage', (dir) => writeFile(path.join(dir, 'index.bin'), 'not an index at all')],
    ['a truncated texts file', (dir) => truncate(path.join(dir, 'texts.bin'), 10)],
  ];
  for (const [what, breakIt] of breakers) {
    const dir = indexDir(current);
    current = await reopened(t, current, () => breakIt(dir));
    t.is(current.search.lastStart?.from, 'journal', what);
    t.deepEqual(await answers(current), before, what);
    // The rebuilt index wrote a good snapshot again.
    const next = await restarted(t, current);
    t.is(next.search.lastStart?.from, 'snapshot', what);
    current = next;
  }
});

test('a deleted session stays gone after a restart from the snapshot; its stream is forgotten, not a reason to rebuild', async (t) => {
  const s = await serverFor(t);
  const { a, b } = await populate(s);
  await ready(s);
  t.is((await s.post(`/api/v1/sessions/${a}:delete`)).code, 0);
  await until(async () => (await search(s, { query: 'zebra' })).data.items.every((x: any) => x.session_id !== a) || undefined, 30_000, 'dropped');
  const again = await restarted(t, s);
  t.is(again.search.lastStart?.from, 'snapshot');
  t.deepEqual((await search(again, { query: 'zebra' })).data.items.map((x: any) => x.session_id), [b]);
  const third = await restarted(t, again);
  t.is(third.search.lastStart?.from, 'snapshot');
});

test('svc-code reindex drops the snapshots: the next start builds the index from the journal', async (t) => {
  const { reindexCommand } = await import('../../src/cli/reindex.ts');
  const s = await serverFor(t);
  await populate(s);
  await ready(s);
  const before = await answers(s);
  const dir = indexDir(s);
  let code = -1;
  const again = await reopened(t, s, async () => {
    await access(path.join(dir, 'index.bin'));
    const write = process.stdout.write;
    process.stdout.write = () => true;
    try {
      code = await reindexCommand(s.home);
    } finally {
      process.stdout.write = write;
    }
    await t.throwsAsync(access(dir));
  });
  t.is(code, 0);
  t.is(again.search.lastStart?.from, 'journal');
  t.deepEqual(await answers(again), before);
});
