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
  // The first prompt titles the session at once (spec/clients.md F)...
  const first = await ws.waitFor((f) => f.type === 'session.meta.updated' && f.payload.session_id === id);
  t.is(first.payload.title, 'Please set up GitHub Actions CI');
  t.is(s.sessions.get(id)?.title_source, 'prompt');
  await endTurn(s, id);
  // ...and the model's title replaces it when the turn ends.
  const meta = await ws.waitFor((f) => f.type === 'session.meta.updated' && f.payload.session_id === id && f.seq > first.seq);
  t.is(meta.payload.title, 'Set up the CI pipeline');
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'Set up the CI pipeline');
  t.is(s.sessions.get(id)?.title_source, 'generated');

  // Later turns of a titled session do not ask again.
  await addPrompt(s, id, 'And a release job');
  await endTurn(s, id);
  const other = await newSession(s);
  llm.setScript(say('Second session title'));
  await addPrompt(s, other, 'Something else');
  await endTurn(s, other);
  await ws.waitFor((f) => f.type === 'session.meta.updated' && f.payload.session_id === other && f.payload.title === 'Second session title');
  t.is(llm.requests.length, 2, 'one request per untitled session');
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'Set up the CI pipeline');
});

test('auto title failures are ignored: the session keeps its first prompt as its title and can be titled later', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s);
  llm.setScript({ kind: 'error', status: 500, message: 'down' });
  await addPrompt(s, id, 'Explain the event journal');
  await endTurn(s, id);
  await until(() => llm.requests.length === 1);
  await llm.requests[0].outcome;
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'Explain the event journal');
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

test('the first prompt titles a new session at once, shortened, whatever auto_session_title says; a custom title is never replaced', async (t) => {
  const { s, llm } = await titleServer(t, { extra: 'auto_session_title = false' });
  const id = await newSession(s);
  const long = `  Refactor the   event journal ${'so that every append is checked '.repeat(4)}\nsecond line`;
  await addPrompt(s, id, long);
  await until(() => s.sessions.get(id)?.title_source === 'prompt');
  const title = (await s.get(`/api/v1/sessions/${id}`)).data.title as string;
  t.true(title.startsWith('Refactor the event journal so that every append'), title);
  t.true(title.endsWith('…') && title.length <= 80 && !title.includes('second line'), title);
  // A second prompt keeps the first one's title.
  await addPrompt(s, id, 'Another request');
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, title);
  // A custom title (at creation or later) is never replaced by a prompt.
  const named = (await s.post('/api/v1/sessions', { metadata: { cwd: (await s.get(`/api/v1/sessions/${id}`)).data.metadata.cwd }, title: 'Mine' })).data.id;
  await addPrompt(s, named, 'Some request');
  t.is(s.sessions.get(named)?.title_source, 'custom');
  t.is((await s.get(`/api/v1/sessions/${named}`)).data.title, 'Mine');
  t.is(llm.requests.length, 0, 'no model call for a prompt title');
});
