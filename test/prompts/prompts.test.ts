import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, text, turnEnded, types } from '../helpers/engine.ts';
import { newSession, startTestServer, tempHome, type TestServer } from '../helpers/server.ts';
import { uploadFile } from '../helpers/files.ts';

const upload = async (s: TestServer, data: Blob, filename: string) => (await uploadFile(s, data, filename)).id;

test('prompt_id idempotency: 40927 while in flight, 40903 with {aborted:false} once completed', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang);
  t.is((await prompt(env, { content: text('one'), prompt_id: 'p-1' })).data.prompt_id, 'p-1');
  const dup = await prompt(env, { content: text('again'), prompt_id: 'p-1' });
  t.is(dup.code, 40927);
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`);
  await turnEnded(env);
  const done = await prompt(env, { content: text('again'), prompt_id: 'p-1' });
  t.is(done.code, 40903);
  t.deepEqual(done.data, { aborted: false });
  const abortDone = await env.s.post(`/api/v1/sessions/${env.sid}/prompts/p-1:abort`);
  t.is(abortDone.code, 40903);
  t.deepEqual(abortDone.data, { aborted: false });
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/prompts/nope:abort`)).code, 40402);
});

test('validation: prompt_id with skills, unknown profile, unknown skill, bad content, unknown session', async (t) => {
  const env = await startEngine(t);
  const both = await prompt(env, { content: text('x'), prompt_id: 'a', skills: [{ name: 'review' }] });
  t.is(both.code, 40001);
  t.is(both.details[0].field, 'prompt_id');
  const profile = await prompt(env, { content: text('x'), profile: 'no-such-profile' });
  t.is(profile.code, 40001);
  t.is(profile.details[0].field, 'profile');
  t.is((await prompt(env, { content: text('x'), skills: [{ name: 'review' }] })).code, 40415);
  t.is((await prompt(env, { content: [] })).code, 40001);
  t.is((await prompt(env, { content: [{ type: 'bogus' }] })).code, 40001);
  t.is((await prompt(env, { content: text('x'), thinking: 'extreme' })).code, 40001);
  t.is((await env.s.post('/api/v1/sessions/session_nope/prompts', { content: text('x') })).code, 40401);
  t.is(env.llm.requests.length, 0);
  t.false(types(await journal(env)).includes('prompt.accepted'));
});

test('media: an unknown file_id, a mis-kinded upload and session_media give 40407 before any override', async (t) => {
  const env = await startEngine(t);
  const pdf = await upload(env.s, new Blob(['%PDF-1.4'], { type: 'application/pdf' }), 'doc.pdf');
  const png = await upload(env.s, new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'a.png');
  const missing = await prompt(env, { content: [{ type: 'image', source: { kind: 'file', file_id: 'file_01JZZZZZZZZZZZZZZZZZZZZZZZ' } }], model: 'nope/nope' });
  t.is(missing.code, 40407, 'media is checked before the model override');
  t.is((await prompt(env, { content: [{ type: 'image', source: { kind: 'file', file_id: pdf } }] })).code, 40407);
  t.is((await prompt(env, { content: [{ type: 'video', source: { kind: 'file', file_id: png } }] })).code, 40407);
  t.is((await prompt(env, { content: [{ type: 'image', source: { kind: 'session_media', file_id: png } }] })).code, 40407);
  env.llm.setScript(scripts.helloText);
  const ok = await prompt(env, { content: [{ type: 'text', text: 'see' }, { type: 'image', source: { kind: 'file', file_id: png } }] });
  t.is(ok.code, 0);
  t.is((await turnEnded(env)).payload.reason, 'completed');
  const sent = env.llm.requests[0]!.body.messages.at(-1).content;
  t.true(JSON.stringify(sent).includes('image'), 'the upload reached the model as an image part');
});

test('40113 for an unknown model alias; a known one is used', async (t) => {
  const env = await startEngine(t);
  const bad = await prompt(env, { content: text('x'), model: 'ghost/model' });
  t.is(bad.code, 40113);
  t.is(bad.details.model_id, 'ghost/model');
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: text('x'), model: 'fx/model' })).code, 0);
  t.is((await turnEnded(env)).payload.reason, 'completed');
  t.is(env.llm.requests[0]!.model, 'fixture-model');
});

test('40110 with no provider at all; 40111 when the provider has no credential', async (t) => {
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), '');
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const sid = await newSession(s);
  t.is((await prompt({ s, sid }, 'x')).code, 40110);
  const home2 = await tempHome();
  await writeFile(path.join(home2, 'config.toml'), `default_model = "k/m"
[providers.k]
type = "chat_compat"
base_url = "http://127.0.0.1:9/v1"
[models."k/m"]
provider = "k"
model = "m"
max_context_size = 1000
`);
  const s2 = await startTestServer({ home: home2 });
  t.teardown(() => s2.stop());
  const sid2 = await newSession(s2);
  const r = await prompt({ s: s2, sid: sid2 }, 'x');
  t.is(r.code, 40111);
  t.is(r.details.provider_id, 'k');
});
