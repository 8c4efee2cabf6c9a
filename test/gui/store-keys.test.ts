import test from 'ava';
import { GUI_STREAM } from '../../journal/keys.ts';
import { serverFor } from '../helpers/server.ts';

test('a GUI key with a lone surrogate is 40001; one appended behind validation is refused without reaching memory; clear keeps working', async (t) => {
  const s = await serverFor(t);
  for (const key of ['\ud800', 'x\udfffy']) {
    const r = await s.req('POST', '/api/v1/gui/store/setItem', `{"key":${JSON.stringify(key)},"value":"v"}`);
    t.is(r.body.code, 40001);
    t.like(r.body.details[0], { field: 'key' });
  }
  t.is((await s.post('/api/v1/gui/store/setItem', { key: 'ok 😀', value: 'v' })).code, 0);
  // The projection's record key cannot encode it: the append is refused and nothing is kept.
  await t.throwsAsync(s.journal.append([{ stream: GUI_STREAM, type: 'gui.item_set', payload: { key: '\ud800', value: 'v' } }]));
  t.is((await s.get('/api/v1/gui/store/length')).data.length, 1);
  t.is((await s.post('/api/v1/gui/store/clear', {})).code, 0);
  t.is((await s.get('/api/v1/gui/store/length')).data.length, 0);
  t.is((await s.post('/api/v1/gui/store/setItem', { key: 'k', value: 'v' })).code, 0);
});

test('ids and paths must be well-formed Unicode', async (t) => {
  const s = await serverFor(t);
  const r = await s.req('POST', '/api/v1/workspaces', '{"root":"/tmp/\\ud800"}');
  t.is(r.body.code, 40001);
  t.like(r.body.details[0], { field: 'root', message: 'must be well-formed Unicode (no lone surrogates)' });
  const p = await s.req('POST', '/api/v1/sessions', '{"workspace_id":"wd_\\udc00"}');
  t.is(p.body.code, 40001);
});
