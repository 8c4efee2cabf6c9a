import test from 'ava';
import { appendUnchecked } from '../helpers/engine-events.ts';

/** A chained LevelDB batch (what the journal writes with) whose write fails as a full or broken disk would. */
function failingBatch(message: string) {
  return () => ({ put() {}, del() {}, close: async () => {}, write: async () => { throw new Error(message); } });
}
import { JournalEncodeError, JournalStoreError } from '../../journal/errors.ts';
import type { JournalEvent } from '../../journal/types.ts';
import { GUI_STREAM } from '../../journal/keys.ts';
import { tempDir } from '../helpers/fs.ts';
import { levelDb, openJournal } from '../helpers/journal.ts';
import { serverFor } from '../helpers/server.ts';

/** An object nested `n` levels deep, built without recursion (JSON.stringify overflows the stack on it). */
function nested(n: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let cur = root;
  for (let i = 0; i < n; i++) {
    const next: Record<string, unknown> = {};
    cur.a = next;
    cur = next;
  }
  return root;
}

const ev = (stream: string, payload: unknown) => ({ stream, type: 'test.event', payload });

test('an append that cannot be encoded is refused alone: no head moves, no projection sees it, later appends work', async (t) => {
  const j = await openJournal(t, { brokenOk: true });
  const derived: JournalEvent[] = [];
  j.setDeriver((events) => {
    derived.push(...events);
    return [];
  });
  await j.append([ev('s', { i: 1 })]);
  const err = await t.throwsAsync(j.append([ev('s', { i: 2 }), ev('t', { deep: nested(100_000) })]), { instanceOf: JournalEncodeError });
  t.regex(err!.message, /nested too deeply/);
  t.is(j.headSeq('s'), 1);
  t.false(j.hasStream('t'));
  t.deepEqual(derived.map((e) => e.payload), [{ i: 1 }]);
  t.is(j.failure, null);
  const [next] = await j.append([ev('s', { i: 3 })]);
  t.is(next.seq, 2);
  t.deepEqual((await j.readRange('s', 1)).map((e) => e.payload), [{ i: 1 }, { i: 3 }]);
});

test('a refused append does not fail the appends it would have shared a batch with', async (t) => {
  const j = await openJournal(t, { brokenOk: true });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const results = await Promise.allSettled([
    j.append([ev('a', { n: 1 })]),
    j.append([ev('b', cyclic)]),
    j.append([ev('c', { big: 10n })]),
    j.append([ev('a', { n: 2 })]),
  ]);
  t.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'rejected', 'fulfilled']);
  for (const r of results.filter((x) => x.status === 'rejected')) t.true((r as PromiseRejectedResult).reason instanceof JournalEncodeError);
  t.deepEqual((await j.readRange('a', 1)).map((e) => e.payload), [{ n: 1 }, { n: 2 }]);
  t.false(j.hasStream('b'));
});

test('projection records that cannot be encoded refuse the append and put the heads back', async (t) => {
  const j = await openJournal(t, { brokenOk: true });
  j.setDeriver((events) => events.map((e) => ({ type: 'put', key: `p!x!${e.seq}`, value: (e.payload as { bad?: boolean }).bad ? nested(100_000) : e.payload })));
  await t.throwsAsync(j.append([ev('s', { bad: true })]), { instanceOf: JournalEncodeError });
  t.false(j.hasStream('s'));
  const [e] = await j.append([ev('s', { bad: false })]);
  t.is(e.seq, 1);
  t.is(j.failure, null);
});

test('a store failure fails the journal: that append and every later one answer the same typed error', async (t) => {
  const j = await openJournal(t, { brokenOk: true });
  await j.append([ev('s', { i: 1 })]);
  const original = levelDb(j).batch.bind(levelDb(j));
  (levelDb(j) as { batch: unknown }).batch = failingBatch('disk full');
  const first = await t.throwsAsync(j.append([ev('s', { i: 2 })]), { instanceOf: JournalStoreError });
  t.regex(first!.message, /disk full/);
  (levelDb(j) as { batch: unknown }).batch = original;
  await t.throwsAsync(j.append([ev('s', { i: 3 })]), { instanceOf: JournalStoreError });
  t.true(j.failure instanceof JournalStoreError);
});

test('over HTTP: after a refused append the daemon stays writable; a store failure answers 50003, reads still answer', async (t) => {
  const s = await serverFor(t);
  const journal = s.journal;
  // Behind validation, the journal's own guard: an event that cannot be encoded (appended directly).
  await t.throwsAsync(appendUnchecked(s, [{ stream: GUI_STREAM, type: 'gui.item_set', payload: { key: 'x', value: nested(100_000) } }]), { instanceOf: JournalEncodeError });
  t.is((await s.post('/api/v1/gui/store/setItem', { key: 'k', value: 'v1' })).code, 0);
  (levelDb(journal) as { batch: unknown }).batch = failingBatch('EIO: i/o error');
  const failed = await s.post('/api/v1/gui/store/setItem', { key: 'k', value: 'v2' });
  t.is(failed.code, 50003);
  t.like(failed.details, { reason: 'journal_store_failed' });
  t.is((await s.post('/api/v1/workspaces', { root: await tempDir() })).code, 50003);
  const read = await s.get('/api/v1/gui/store/getItem?key=k');
  t.is(read.code, 0);
  const list = await s.req('GET', '/api/v1/sessions');
  t.is(list.body.code, 0);
  // healthz says so, without the store's error (it needs no token): the error is in the log.
  const health = await fetch(`${s.baseUrl}/api/v1/healthz`).then((r) => r.json() as Promise<any>);
  t.like(health, { code: 50003, data: null, details: { reason: 'journal_store_failed' } });
  t.notRegex(health.msg, /EIO/);
});
