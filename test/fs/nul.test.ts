import test from 'ava';
import { startFsFixture } from '../helpers/fs-fixture.ts';

test('a NUL byte in any path is 40001 with details, never 50001', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const auth = { Authorization: `Bearer ${f.s.token}` };
  const read = await f.s.post(`/api/v1/sessions/${f.sessionId}/fs:read`, { path: 'a\u0000b' });
  t.is(read.code, 40001);
  t.is(read.details[0].field, 'path');
  const dl = await fetch(`${f.s.baseUrl}/api/v1/sessions/${f.sessionId}/fs/a%00b:download`, { headers: auth });
  t.is(dl.status, 200);
  t.is((await dl.json()).code, 40001);
  const content = await f.s.get('/api/v1/fs:content?path=/tmp/a%00b');
  t.is(content.code, 40001);
  const browse = await f.s.get('/api/v1/fs:browse?path=/tmp/a%00b');
  t.is(browse.code, 40001);
  const mkdir = await f.s.post('/api/v1/fs:mkdir', { path: '/tmp/a\u0000b' });
  t.is(mkdir.code, 40001);
});
