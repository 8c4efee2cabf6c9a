import test from 'ava';
import { tempDir } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';

test('an array where an object belongs is 40001: a whole body, metadata, agent_config, config tables, ws maps', async (t) => {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const id = (await s.post('/api/v1/sessions', { metadata: { cwd } })).data.id;
  for (const url of [`/api/v1/sessions/${id}:archive`, `/api/v1/sessions/${id}:fork`, `/api/v1/sessions/${id}/children`, '/api/v1/auth/logout']) {
    const r = await s.req('POST', url, '[1,2]');
    t.is(r.body.code, 40001, url);
    t.deepEqual(r.body.details, [{ field: 'body', message: 'must be a JSON object' }], url);
  }
  t.false((await s.get(`/api/v1/sessions/${id}`)).data.archived);
  for (const [url, body, field] of [
    [`/api/v1/sessions/${id}/profile`, { metadata: [1, 2] }, 'metadata'],
    [`/api/v1/sessions/${id}/profile`, { agent_config: ['model'] }, 'agent_config'],
    ['/api/v1/sessions', { metadata: [cwd] }, 'metadata'],
    ['/api/v1/config', { thinking: [] }, 'thinking'],
    ['/api/v1/config', { providers: [{ type: 'chat_compat' }] }, 'providers'],
  ] as const) {
    const r = await s.post(url, body);
    t.is(r.code, 40001, `${url} ${field}`);
    t.like(r.details[0], { field, message: 'must be an object, not an array' });
  }
  t.deepEqual(Object.keys((await s.get(`/api/v1/sessions/${id}`)).data.metadata), ['cwd']);
  const ws = await s.ws();
  t.teardown(() => ws.close());
  const ack = await ws.request('subscribe', { session_ids: [id], cursors: [{ seq: 1, epoch: 'e' }] });
  t.is(ack.code, 40001);
  t.like(ack.details[0], { field: 'payload.cursors', message: 'must be an object, not an array' });
});
