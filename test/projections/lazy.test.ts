import test from 'ava';
import { versionKey } from '../../journal/keys.ts';
import { LazyProjection } from '../../projections/lazy-projection.ts';
import type { StreamReducer } from '../../projections/projection.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { openJournal } from '../helpers/journal.ts';

/** Counts a stream's events; `test.boom` makes it throw (a reducer bug). */
const counter: StreamReducer<{ n: number }> = {
  name: 'counter',
  version: 3,
  init: () => ({ n: 0 }),
  apply(state, e) {
    if (e.type === 'test.boom') throw new Error('boom');
    state.n += 1;
  },
};

async function setup(t: import('ava').ExecutionContext) {
  const journal = await openJournal(t);
  const lazy = new LazyProjection(journal, counter, 2);
  const runner = new ProjectionRunner(journal, [lazy]);
  t.deepEqual(await runner.start(), { rebuilt: ['counter'] });
  const add = (stream: string, n = 1, type = 'test.event') => journal.append(Array.from({ length: n }, () => ({ stream, type, payload: {} })));
  return { journal, lazy, runner, add, count: (stream: string) => lazy.read(stream, (s, seq) => ({ ...s, seq })) };
}

test('a stream is folded when first read, then kept up to date as events are appended, without reading the journal', async (t) => {
  const { lazy, add, count } = await setup(t);
  await add('a', 3);
  t.is(lazy.peek('a'), undefined, 'nothing is folded before a read');
  t.deepEqual(await count('a'), { n: 3, seq: 3 });
  await add('a', 2);
  t.deepEqual(lazy.peek('a'), { state: { n: 5 }, seq: 5 });
  t.deepEqual(await count('a'), { n: 5, seq: 5 });
});

test('only the most recently read streams are kept; a throwing event drops its fold and the next read fails as the fold does', async (t) => {
  const { lazy, add, count } = await setup(t);
  for (const s of ['a', 'b', 'c']) {
    await add(s, 2);
    await count(s);
  }
  t.is(lazy.peek('a'), undefined, 'the least recently read went first');
  t.truthy(lazy.peek('b'));
  await add('c', 1, 'test.boom');
  t.is(lazy.peek('c'), undefined, 'the append was taken; the half-applied fold was dropped');
  await t.throwsAsync(count('c'), { message: 'boom' });
  t.deepEqual(await count('b'), { n: 2, seq: 2 }, 'other streams are unaffected');
});

test('a rebuild (a version change, --rebuild-projections) drops every kept fold and records the version, replaying nothing', async (t) => {
  const { journal, lazy, runner, add, count } = await setup(t);
  await add('a', 2);
  await count('a');
  await runner.rebuild([lazy]);
  t.is(lazy.peek('a'), undefined);
  t.is(await journal.store.get(versionKey('counter')), 3);
  await add('a', 1);
  t.is(lazy.peek('a'), undefined, 'not kept until read again');
  t.deepEqual(await count('a'), { n: 3, seq: 3 });
});
