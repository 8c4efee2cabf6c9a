import test from 'ava';
import { BACKENDS, openJournal } from '../helpers/journal.ts';

const events = (stream: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ stream, type: 'test.event', payload: { i: from + i } }));

for (const backend of BACKENDS) {
  test(`[${backend}] readRange gives the same events for short ranges (one getMany) and long ones (an iterator)`, async (t) => {
    const j = await openJournal(t, { backend });
    await j.append(events('s', 100));
    const all = await j.readRange('s', 1);
    t.deepEqual(all.map((e) => e.seq), Array.from({ length: 100 }, (_, i) => i + 1));
    t.deepEqual(all.map((e) => (e.payload as { i: number }).i), Array.from({ length: 100 }, (_, i) => i));
    const short = await j.readRange('s', 10, 20);
    t.deepEqual(short, all.slice(9, 20));
    t.deepEqual(await j.readRange('s', 95, undefined, 3), all.slice(94, 97));
    t.deepEqual(await j.readRange('s', 101), []);
    t.is(j.headSeq('s'), 100);
    t.is(j.headSeq('none'), 0);
  });

  test(`[${backend}] readRange of a short stream returns only what is on disk, not an append still in flight`, async (t) => {
    const j = await openJournal(t, { backend });
    await j.append(events('s', 3));
    const pending = j.append(events('s', 2, 3));
    const read = await j.readRange('s', 1);
    t.true(read.length === 3 || read.length === 5);
    t.deepEqual(read.map((e) => (e.payload as { i: number }).i), Array.from({ length: read.length }, (_, i) => i));
    await pending;
    t.deepEqual((await j.readRange('s', 1)).map((e) => e.seq), [1, 2, 3, 4, 5]);
  });
}
