import test from 'ava';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import { tempDir } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';

test('a stored record that cannot be serialised: lists answer the others and name it in unreadable; reading it answers 50003', async (t) => {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const id = (await s.post('/api/v1/sessions', { metadata: { cwd } })).data.id as string;
  const good = s.sessions.get(id)!;
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const bad: SessionRecord = { ...good, id: 'session_BAD', title: cyclic as unknown as string, metadata: cyclic, updated_at: '2999-01-01T00:00:00.000Z' };
  s.sessions.upsert(bad);
  for (const url of ['/api/v1/sessions', '/api/v2/sessions', '/api/v2/sessions?view=by_workspace']) {
    const r = await s.req('GET', url);
    t.is(r.status, 200, url);
    t.is(r.body.code, 0, url);
    const items = r.body.data.items ?? r.body.data.groups[0].sessions;
    t.deepEqual(items.map((x: { id: string }) => x.id), [id], url);
    t.is(r.body.data.unreadable.length, 1, url);
    t.like(r.body.data.unreadable[0], { id: 'session_BAD', code: 50003 }, url);
    t.regex(r.body.data.unreadable[0].msg, /^stored record cannot be read/);
  }
  const one = await s.req('GET', '/api/v1/sessions/session_BAD');
  t.is(one.status, 200);
  t.is(one.body.code, 50003);
  t.is(typeof one.body.request_id, 'string');
  t.is((await s.post('/api/v1/gui/store/setItem', { key: 'k', value: 'v' })).code, 0);
  // The contract checker saw the planted record in the handlers' data (before the envelope left it out).
  t.true(s.checker.violations.length > 0);
  t.true(s.checker.violations.every((x) => x.kind === 'route-data'));
  s.checker.violations.length = 0;
});
