import test from 'ava';
import { GUI_VALUE_MAX_BYTES } from '../../protocol/schemas/gui-store.ts';
import { serverFor } from '../helpers/server.ts';

const S = '/api/v1/gui/store';
const getItem = (key: string) => `${S}/getItem?key=${encodeURIComponent(key)}`;

test('set, get, length, remove, clear, and the __gui__ events', async (t) => {
  const s = await serverFor(t);
  const events = s.committed();

  t.deepEqual((await s.get(`${S}/length`)).data, { length: 0 });
  t.deepEqual((await s.get(getItem('theme'))).data, { value: null });
  const set = await s.post(`${S}/setItem`, { key: 'theme', value: 'dark' });
  t.is(set.code, 0);
  t.is(set.data, null);
  await s.post(`${S}/setItem`, { key: 'layout', value: '{"panes":[1,2]}' });
  await s.post(`${S}/setItem`, { key: 'empty', value: '' });
  t.deepEqual((await s.get(getItem('theme'))).data, { value: 'dark' });
  t.deepEqual((await s.get(getItem('empty'))).data, { value: '' });
  t.deepEqual((await s.get(`${S}/length`)).data, { length: 3 });

  await s.post(`${S}/setItem`, { key: 'theme', value: 'light' });
  await s.post(`${S}/setItem`, { key: 'theme', value: 'light' });
  t.deepEqual((await s.get(getItem('theme'))).data, { value: 'light' });
  t.deepEqual((await s.get(`${S}/length`)).data, { length: 3 });

  const rm = await s.post(`${S}/removeItem`, { key: 'theme' });
  t.is(rm.code, 0);
  t.is(rm.data, null);
  t.is((await s.post(`${S}/removeItem`, { key: 'absent' })).code, 0);
  t.deepEqual((await s.get(getItem('theme'))).data, { value: null });
  t.deepEqual((await s.get(`${S}/length`)).data, { length: 2 });

  const clear = await s.post(`${S}/clear`);
  t.is(clear.code, 0);
  t.is(clear.data, null);
  t.deepEqual((await s.get(`${S}/length`)).data, { length: 0 });
  t.deepEqual((await s.get(getItem('layout'))).data, { value: null });

  t.true(events.every((e) => e.stream === '__gui__'));
  t.deepEqual(events.map((e) => e.type), [
    'gui.item_set', 'gui.item_set', 'gui.item_set', 'gui.item_set', // the repeated identical set appends nothing
    'gui.item_removed', // removing an absent key appends nothing
    'gui.cleared',
  ]);
  t.deepEqual(events[3].payload, { key: 'theme', value: 'light' });
});

test('key and value validation', async (t) => {
  const s = await serverFor(t);
  const fields = (b: any) => b.details.map((d: any) => d.field);

  const long = await s.post(`${S}/setItem`, { key: 'k'.repeat(257), value: 'v' });
  t.is(long.code, 40001);
  t.deepEqual(fields(long), ['key']);
  t.is((await s.post(`${S}/setItem`, { key: 'k'.repeat(256), value: 'v' })).code, 0);
  const empty = await s.post(`${S}/setItem`, { key: '', value: 'v' });
  t.is(empty.code, 40001);
  t.deepEqual(fields(empty), ['key']);

  const num = await s.post(`${S}/setItem`, { key: 'k', value: 42 });
  t.is(num.code, 40001);
  t.deepEqual(fields(num), ['value']);
  const none = await s.post(`${S}/setItem`, {});
  t.is(none.code, 40001);
  t.deepEqual(fields(none).sort(), ['key', 'value']);
  const big = await s.post(`${S}/setItem`, { key: 'big', value: 'x'.repeat(GUI_VALUE_MAX_BYTES + 1) });
  t.is(big.code, 40001);
  t.deepEqual(fields(big), ['value']);
  t.is((await s.post(`${S}/setItem`, { key: 'max', value: 'x'.repeat(GUI_VALUE_MAX_BYTES) })).code, 0);

  const noKey = await s.get(`${S}/getItem`);
  t.is(noKey.code, 40001);
  t.deepEqual(fields(noKey), ['key']);
  t.is((await s.get(`${S}/getItem?key=`)).code, 40001);
  t.is((await s.get(`${S}/getItem?key=${'k'.repeat(257)}`)).code, 40001);
  t.is((await s.post(`${S}/removeItem`, {})).code, 40001);
  t.is((await s.post(`${S}/removeItem`, { key: 'k'.repeat(257) })).code, 40001);
  t.deepEqual((await s.get(`${S}/length`)).data, { length: 2 }, 'rejected writes stored nothing');
});

test('values survive a restart, including removals and awkward keys', async (t) => {
  const s = await serverFor(t);
  const keys = ['plain', 'a/b?c=d&e', '100%!~ünï', 'p!gui-store!x'];
  for (const [i, key] of keys.entries()) await s.post(`${S}/setItem`, { key, value: `v${i}` });
  await s.post(`${S}/setItem`, { key: 'gone', value: 'x' });
  await s.post(`${S}/removeItem`, { key: 'gone' });

  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  t.deepEqual((await s2.get(`${S}/length`)).data, { length: keys.length });
  for (const [i, key] of keys.entries()) t.deepEqual((await s2.get(getItem(key))).data, { value: `v${i}` }, key);
  t.deepEqual((await s2.get(getItem('gone'))).data, { value: null });

  await s2.post(`${S}/clear`);
  const s3 = await s2.restart({ rebuildProjections: true });
  t.teardown(() => s3.stop());
  t.deepEqual((await s3.get(`${S}/length`)).data, { length: 0 }, 'clear survives a restart and a rebuild');
});
