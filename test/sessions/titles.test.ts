import test from 'ava';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { addPrompt, addReply, askedText, titleServer } from '../helpers/titles.ts';
import { newSession } from '../helpers/server.ts';

const say = (text: string) => ({ events: [{ text }] });
const gen = (id: string) => `/api/v1/sessions/${id}/title/generate`;

test('user_prompts (default) titles the session from its prompts, cleaned, and broadcasts session.meta.updated', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s);
  await addPrompt(s, id, 'The login form rejects valid passwords');
  await addPrompt(s, id, 'Also add a unit test for it');
  const ws = await s.ws();
  t.teardown(() => ws.close());
  llm.setScript({ events: [{ text: 'Title: "Fix login ' }, { text: 'password validation."\nextra line' }] });
  const r = await s.post(gen(id), {});
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data, { title: 'Fix login password validation' });
  t.is(llm.requests.length, 1);
  t.is(llm.requests[0].model, 'small-model');
  const asked = askedText(llm, 0);
  t.true(asked.includes('The login form rejects valid passwords'));
  t.true(asked.includes('Also add a unit test for it'));

  const sess = await s.get(`/api/v1/sessions/${id}`);
  t.is(sess.data.title, 'Fix login password validation');
  t.is(s.sessions.get(id)?.title_source, 'generated');
  const meta = await ws.waitFor((f) => f.type === 'session.meta.updated' && f.payload.session_id === id && f.payload.title === 'Fix login password validation');
  t.like(meta.payload, { session_id: id, workspace_id: sess.data.workspace_id, title: 'Fix login password validation' });
  t.regex(meta.payload.updated_at, /^\d{4}-/);
  // The first prompt titled the session at once (spec/clients.md F); the generated title replaced it without force.
  const session = await s.eventsOf(id);
  t.deepEqual(session.filter((e) => e.type === 'session.title_generated').map((e) => e.payload), [
    { title: 'The login form rejects valid passwords', source: 'first_prompt', model: '' },
    { title: 'Fix login password validation', source: 'user_prompts', model: 'fx/small' },
  ]);
});

test('first_turn uses the first prompt and the first reply only; digest covers the conversation', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s);
  await addPrompt(s, id, 'FIRST-PROMPT about parsing TOML');
  await addReply(s, id, 'FIRST-REPLY use smol-toml');
  await addPrompt(s, id, 'SECOND-PROMPT now write docs');
  await addReply(s, id, 'SECOND-REPLY docs written');
  await addPrompt(s, id, 'subagent work', 'agent_x');
  llm.setScript(say('TOML parsing help'), say('TOML parsing and docs'));

  const first = await s.post(gen(id), { source: 'first_turn' });
  t.deepEqual(first.data, { title: 'TOML parsing help' });
  const a = askedText(llm, 0);
  t.true(a.includes('FIRST-PROMPT') && a.includes('FIRST-REPLY'));
  t.false(a.includes('SECOND-PROMPT') || a.includes('SECOND-REPLY') || a.includes('subagent work'));

  const digest = await s.post(gen(id), { source: 'digest', force: true });
  t.deepEqual(digest.data, { title: 'TOML parsing and docs' });
  const d = askedText(llm, 1);
  for (const x of ['FIRST-PROMPT', 'FIRST-REPLY', 'SECOND-PROMPT', 'SECOND-REPLY']) t.true(d.includes(x), x);
  t.false(d.includes('subagent work'));
});

test('an existing title needs force; force replaces a generated title', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s);
  await addPrompt(s, id, 'Refactor the cache layer');
  llm.setScript(say('Cache layer refactor'), say('Refactoring the cache'));
  t.is((await s.post(gen(id))).data.title, 'Cache layer refactor');

  const again = await s.post(gen(id), { force: false });
  t.is(again.code, 40923);
  t.is(again.details.reason, 'title_exists');
  t.is(llm.requests.length, 1, 'no model call without force');

  const forced = await s.post(gen(id), { force: true });
  t.deepEqual(forced.data, { title: 'Refactoring the cache' });
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'Refactoring the cache');
});

test('a custom title is never overwritten: 40923 even with force, and a generated event does not replace it', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s, { title: 'My Own Title' });
  await addPrompt(s, id, 'Anything');
  llm.setScript(say('Generated'));
  const r = await s.post(gen(id), { force: true });
  t.is(r.code, 40923);
  t.is(r.details.reason, 'custom_title');
  t.is(llm.requests.length, 0);

  // A generation that raced with a profile rename: the index keeps the custom title.
  await s.journal.append([{ stream: id, type: 'session.title_generated', payload: { title: 'Late generated', source: 'user_prompts', model: 'acme/smart' } }]);
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'My Own Title');

  const other = await newSession(s);
  await addPrompt(s, other, 'Anything');
  llm.setScript(say('Generated first'));
  t.is((await s.post(gen(other))).code, 0);
  await s.post(`/api/v1/sessions/${other}/profile`, { title: 'Renamed by user' });
  t.is((await s.post(gen(other), { force: true })).details.reason, 'custom_title');
  t.is((await s.get(`/api/v1/sessions/${other}`)).data.title, 'Renamed by user');
});

test('40923 without a usable model, without content, and when the backend fails', async (t) => {
  const bare = await titleServer(t, { withModel: false });
  const id0 = await newSession(bare.s);
  await addPrompt(bare.s, id0, 'Hello');
  const noModel = await bare.s.post(gen(id0));
  t.is(noModel.code, 40923);
  t.is(noModel.details.reason, 'no_model');

  const { s, llm } = await titleServer(t);
  const empty = await newSession(s);
  const noContent = await s.post(gen(empty));
  t.is(noContent.code, 40923);
  t.like(noContent.details, { reason: 'no_content', source: 'user_prompts' });

  const id = await newSession(s);
  await addPrompt(s, id, 'Hello');
  llm.setScript({ kind: 'error', status: 500, message: 'boom' });
  const failed = await s.post(gen(id));
  t.is(failed.code, 40923);
  t.like(failed.details, { reason: 'backend_failed', status: 500 });
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.title, 'Hello', 'the first prompt stays the title');

  const unknownModel = await newSession(s);
  await s.post(`/api/v1/sessions/${unknownModel}/profile`, { agent_config: { model: 'nope/none' } });
  await addPrompt(s, unknownModel, 'Hello');
  t.like((await s.post(gen(unknownModel))).details, { reason: 'model_not_resolved', model: 'nope/none' });
});

test('unknown session is 40401; a bad source is 40001', async (t) => {
  const { s } = await titleServer(t);
  t.is((await s.post(gen('session_nope'))).code, 40401);
  const id = await newSession(s);
  const bad = await s.post(gen(id), { source: 'everything' });
  t.is(bad.code, 40001);
  t.is(bad.details[0].field, 'source');
});

test('session.meta.updated of a title lands on the session\'s own stream (clients.md E5), with patch (E8)', async (t) => {
  const { s, llm } = await titleServer(t);
  const id = await newSession(s);
  await addPrompt(s, id, 'Benchmark the journal');
  llm.setScript(say('Journal benchmarks'));
  t.is((await s.post(gen(id))).code, 0);
  const global = await s.eventsOf(GLOBAL_STREAM);
  t.is(global.filter((e) => e.type === 'session.meta.updated').length, 0);
  const meta = (await s.eventsOf(id)).filter((e) => e.type === 'session.meta.updated');
  t.is(meta.length, 2, 'the first prompt\'s title, then the generated one');
  t.like(meta[0].payload, { session_id: id, title: 'Benchmark the journal', patch: { title: 'Benchmark the journal', isCustomTitle: false, lastPrompt: 'Benchmark the journal' } });
  t.like(meta[1].payload, { session_id: id, title: 'Journal benchmarks', patch: { title: 'Journal benchmarks', isCustomTitle: false, lastPrompt: 'Benchmark the journal' } });
});
