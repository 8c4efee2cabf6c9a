import test from 'ava';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, text, turnEnded, types, type EngineEnv } from '../helpers/engine.ts';
import type { TestServer } from '../helpers/server.ts';
import { rawGet, uploadFile } from '../helpers/files.ts';
import { makePng } from '../helpers/images.ts';

// A real PNG: the model is sent images that decode (an undecodable one becomes a note); noise keeps its base64 distinctive.
const PNG = await makePng(24, 24, { noise: true });
const B64 = PNG.toString('base64');
const b64Image = (data = B64, media_type = 'image/png') => ({ type: 'image', source: { kind: 'base64', media_type, data } });

const raw = rawGet;
const upload = async (s: TestServer, bytes: Buffer, name: string, type: string) => (await uploadFile(s, bytes, name, type)).id;

/** Files in the session's media store (none when the directory was never made). */
async function stored(env: EngineEnv, sid = env.sid): Promise<string[]> {
  return readdir(path.join(env.s.home, 'sessions-media', sid)).catch(() => []);
}

/** The user content of the last chat-completions request the fixture saw, as JSON. */
const lastUserContent = (env: EngineEnv) => JSON.stringify(env.llm.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'user'));

test('a base64 image is stored as session media, journaled by id, sent to the model and served with Range', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  const r = await prompt(env, { content: [{ type: 'text', text: 'look' }, b64Image()] });
  t.is(r.code, 0);
  const src = r.data.content[1].source;
  t.like(src, { kind: 'session_media', media_type: 'image/png' });
  t.regex(src.file_id, /^media_[0-9A-Z]{26}$/);
  t.is((await turnEnded(env)).payload.reason, 'completed');

  const events = await journal(env);
  t.true(types(events).includes('prompt.accepted'));
  t.false(JSON.stringify(events).includes(B64.slice(0, 200)), 'no base64 in the journal');
  t.deepEqual(events.find((e) => e.type === 'prompt.accepted')!.payload.content[1].source, src);

  t.true(lastUserContent(env).includes(`data:image/png;base64,${B64}`), 'the model got the image bytes');

  const full = await raw(env.s, `/api/v1/sessions/${env.sid}/media/${src.file_id}`);
  t.is(full.status, 200);
  t.is(full.headers.get('content-type'), 'image/png');
  t.deepEqual(full.bytes, PNG);
  const part = await raw(env.s, `/api/v1/sessions/${env.sid}/media/${src.file_id}`, { Range: 'bytes=8-15' });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 8-15/${PNG.length}`);
  t.deepEqual(part.bytes, PNG.subarray(8, 16));

  // The id is reusable in a later prompt of the same session; the wrong kind is 40407.
  t.is((await prompt(env, { content: [{ type: 'video', source: { kind: 'session_media', file_id: src.file_id } }] })).code, 40407);
  const again = await prompt(env, { content: [{ type: 'image', source: { kind: 'session_media', file_id: src.file_id } }] });
  t.is(again.code, 0);
  t.is((await turnEnded(env, 2)).payload.reason, 'completed');
  t.is(lastUserContent(env).split(B64).length - 1, 2, 'history and the new prompt both carry the image');
});

test('session_media ids must exist in this session', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [b64Image()] })).code, 0);
  await turnEnded(env);
  const id = (await journal(env)).find((e) => e.type === 'prompt.accepted')!.payload.content[0].source.file_id;
  const other = (await env.s.post('/api/v1/sessions', { metadata: { cwd: env.s.home } })).data.id;
  const foreign = await env.s.post(`/api/v1/sessions/${other}/prompts`, { content: [{ type: 'image', source: { kind: 'session_media', file_id: id } }] });
  t.is(foreign.code, 40407);
  t.is(foreign.details.id, id);
  const unknown = await prompt(env, { content: [{ type: 'image', source: { kind: 'session_media', file_id: 'media_01JZZZZZZZZZZZZZZZZZZZZZZZ' } }] });
  t.is(unknown.code, 40407);
  t.is(unknown.details.field, 'content[0].source.file_id');
});

test('an uploaded image is committed to the session under its id and outlives the upload', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  const png = await upload(env.s, PNG, 'a.png', 'image/png');
  const pdf = await upload(env.s, Buffer.from('%PDF-1.4'), 'd.pdf', 'application/pdf');
  const wrong = await prompt(env, { content: [{ type: 'image', source: { kind: 'file', file_id: pdf } }] });
  t.is(wrong.code, 40407);
  t.is(wrong.details.expected, 'image/*');

  const r = await prompt(env, { content: [{ type: 'image', source: { kind: 'file', file_id: png } }] });
  t.is(r.code, 0);
  t.deepEqual(r.data.content[0].source, { kind: 'file', file_id: png });
  await turnEnded(env);
  t.true(lastUserContent(env).includes(`data:image/png;base64,${B64}`));
  t.true((await stored(env)).includes(png));

  t.is((await env.s.req('DELETE', `/api/v1/files/${png}`)).body.code, 0);
  t.is((await env.s.get(`/api/v1/files/${png}`)).code, 40407, 'the upload itself is gone');
  const served = await raw(env.s, `/api/v1/sessions/${env.sid}/media/${png}`);
  t.is(served.status, 200);
  t.deepEqual(served.bytes, PNG);
  t.is((await prompt(env, 'and now?')).code, 0);
  await turnEnded(env, 2);
  t.true(lastUserContent(env).includes(B64), 'history still reads the committed copy');
});

test('invalid media is 40001 with the field, and nothing is stored or journaled', async (t) => {
  const env = await startEngine(t);
  const cases: Array<[unknown[], string]> = [
    [[b64Image('not base64 !!')], 'content[0].source.data'],
    [[b64Image('QUJDRA=x')], 'content[0].source.data'],
    [[b64Image(B64, 'video/mp4')], 'content[0].source.media_type'],
    [[{ type: 'video', source: { kind: 'base64', media_type: 'image/png', data: B64 } }], 'content[0].source.media_type'],
    [[b64Image(B64, 'png')], 'content[0].source.media_type'],
    [[b64Image(), b64Image('%%%')], 'content[1].source.data'],
    [[{ type: 'image', source: { kind: 'url', url: 'ftp://example.com/a.png' } }], 'content[0].source.url'],
    [[{ type: 'image', source: { kind: 'url', url: 'not a url' } }], 'content[0].source.url'],
  ];
  for (const [content, field] of cases) {
    const r = await prompt(env, { content });
    t.is(r.code, 40001, field);
    t.is(r.details[0].field, field);
  }
  const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1).toString('base64');
  const over = await prompt(env, { content: [b64Image(big)] });
  t.is(over.code, 40001);
  t.regex(over.details[0].message, /exceeds/);
  // Media checked fine, then a later check (the model) fails: nothing may stay stored.
  t.is((await prompt(env, { content: [b64Image()], model: 'ghost/model' })).code, 40113);
  t.deepEqual(await stored(env), []);
  t.false(types(await journal(env)).includes('prompt.accepted'));
  t.is(env.llm.requests.length, 0);
});

test('a url image is passed to the model as a URL', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText);
  const url = 'https://example.com/cat.png';
  const r = await prompt(env, { content: [...text('what is it'), { type: 'image', source: { kind: 'url', url } }] });
  t.is(r.code, 0);
  await turnEnded(env);
  const user = env.llm.requests[0]!.body.messages.at(-1);
  t.true(JSON.stringify(user.content).includes(url));
  t.deepEqual(await stored(env), []);
});

test('media gone at turn time becomes a text note instead of failing the turn', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  const r = await prompt(env, { content: [b64Image()] });
  await turnEnded(env);
  await rm(path.join(env.s.home, 'sessions-media', env.sid), { recursive: true });
  t.is((await prompt(env, 'again')).code, 0);
  t.is((await turnEnded(env, 2)).payload.reason, 'completed');
  t.true(lastUserContent(env).includes(`[image unavailable: ${r.data.content[0].source.file_id}]`));
});
