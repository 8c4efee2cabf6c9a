import test from 'ava';
import { addPrompt, endTurn, titleServer } from '../helpers/titles.ts';
import { until } from '../helpers/wait.ts';
import { newSession } from '../helpers/server.ts';

const say = (text: string) => ({ events: [{ text }] });

test('auto_session_title: the first turn.ended of an untitled session generates a title in the background', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s);
  const ws = await s.ws();
  t.teardown(() => ws.close());
  llm.setScript(say('Set up the CI pipeline'));
  await addPrompt(s, id, 'Please set up GitHub Actions CI');
  await endTurn(s, id);
  const meta = await ws.waitFor((f) => f.type === 'session.meta.updated' && f.payload.session_id === id);
  t.is(meta.payload.title, 'Set up the CI pipeline');
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'Set up the CI pipeline');
  t.is(s.server.services.sessions.get(id)?.title_source, 'generated');

  // Later turns of a titled session do not ask again.
  await addPrompt(s, id, 'And a release job');
  await endTurn(s, id);
  const other = await newSession(s);
  llm.setScript(say('Second session title'));
  await addPrompt(s, other, 'Something else');
  await endTurn(s, other);
  await ws.waitFor((f) => f.type === 'session.meta.updated' && f.payload.session_id === other);
  t.is(llm.requests.length, 2, 'one request per untitled session');
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'Set up the CI pipeline');
});

test('auto title failures are ignored: the session stays untitled and can be titled later', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s);
  llm.setScript({ kind: 'error', status: 500, message: 'down' });
  await addPrompt(s, id, 'Explain the event journal');
  await endTurn(s, id);
  await until(() => llm.requests.length === 1);
  await llm.requests[0].outcome;
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, '');
  llm.setScript(say('Event journal explained'));
  const r = await s.post(`/api/v1/sessions/${id}/title/generate`, {});
  t.is(r.code, 0, JSON.stringify(r));
  t.is(r.data.title, 'Event journal explained');
});

test('auto_session_title = false: no title after the first turn', async (t) => {
  const { s, llm } = await titleServer(t, { extra: 'auto_session_title = false' });
  t.false((await s.get('/api/v1/config')).data.auto_session_title);
  const id = await newSession(s);
  llm.setScript(say('Manual title'));
  await addPrompt(s, id, 'Write a README');
  await endTurn(s, id);
  // An automatic request would start at commit time and take the one scripted reply.
  const r = await s.post(`/api/v1/sessions/${id}/title/generate`, {});
  t.deepEqual(r.data, { title: 'Manual title' });
  await s.server.close();
  t.is(llm.requests.length, 1);
});
