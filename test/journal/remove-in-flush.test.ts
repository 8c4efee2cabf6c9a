import test from 'ava';
import { Level } from 'level';
import { levelDb, openJournal } from '../helpers/journal.ts';

const ev = (stream: string, i: number) => ({ stream, type: 'test.event', payload: { i } });

async function keysOf(db: { keys(r: { gte: string; lt: string }): AsyncIterable<string> }, stream: string): Promise<string[]> {
  const out: string[] = [];
  for (const range of [{ gte: `e!${stream}!`, lt: `e!${stream}!~` }, { gte: `h!${stream}`, lt: `h!${stream}~` }]) {
    for await (const k of db.keys(range)) out.push(k);
  }
  return out;
}

test('[leveldb] a flush that appends to a stream and then removes it leaves no key of the stream', async (t) => {
  const j = await openJournal(t, { brokenOk: true });
  const db = levelDb(j);
  // One append in flight: the next two wait for the same (group) flush.
  const first = j.append([ev('other', 0)]);
  const appended = j.append([ev('gone', 1), ev('gone', 2)]);
  const removed = j.removeStream('gone', [ev('other', 1)]);
  await Promise.all([first, appended, removed]);
  t.deepEqual(await keysOf(db as never, 'gone'), []);
  const location = (db as unknown as { location: string }).location;
  await j.close();
  const again = new Level<string, unknown>(location, { valueEncoding: 'json' });
  await again.open();
  t.teardown(() => again.close());
  t.deepEqual(await keysOf(again as never, 'gone'), []);
  const other = await keysOf(again as never, 'other');
  t.true(other.length >= 2, 'the other stream is kept');
});
