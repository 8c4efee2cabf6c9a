import test from 'ava';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, types, type EngineEnv } from '../helpers/engine.ts';
import type { TestServer } from '../helpers/server.ts';
import { rawGet, uploadFile } from '../helpers/files.ts';

const TEXT = 'line one of notes.md\nthe answer is 42 — café\n';

const upload = uploadFile;

async function stored(env: EngineEnv): Promise<string[]> {
  return readdir(path.join(env.s.home, 'sessions-media', env.sid)).catch(() => []);
}

async function raw(s: TestServer, url: string) {
  const r = await rawGet(s, url);
  return { status: r.status, type: r.headers.get('content-type'), bytes: r.bytes };
}

/** Every user message the fixture LLM got in its last request, as one string. */
const lastUserText = (env: EngineEnv) => JSON.stringify(env.llm.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'user'));

const filePart = (file_id: string, over: Record<string, unknown> = {}) => ({ type: 'file', file_id, name: 'notes.md', media_type: 'text/markdown', size: 1, ...over });

test('a file part is committed to the session, read to the model as text, and outlives its upload', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  const up = await upload(env.s, Buffer.from(TEXT), 'notes.txt', 'text/plain');
  // Wrong size and media type, empty name: filled from the upload (see prompt-media.ts).
  const r = await prompt(env, { content: [{ type: 'text', text: 'read this' }, filePart(up.id, { name: '', media_type: 'application/x-wrong', size: 999 })] });
  t.is(r.code, 0);
  t.deepEqual(r.data.content[1], { type: 'file', file_id: up.id, name: up.name, media_type: up.media_type, size: Buffer.byteLength(TEXT) });
  const accepted = (await journal(env)).find((e) => e.type === 'prompt.accepted')!;
  t.deepEqual(accepted.payload.content[1], r.data.content[1]);
  await turnEnded(env);
  t.true(lastUserText(env).includes(JSON.stringify(TEXT).slice(1, -1)), 'the model got the file text');
  t.true((await stored(env)).includes(up.id));

  t.is((await env.s.req('DELETE', `/api/v1/files/${up.id}`)).body.code, 0);
  t.is((await env.s.get(`/api/v1/files/${up.id}`)).code, 40407, 'the upload itself is gone');
  const served = await raw(env.s, `/api/v1/sessions/${env.sid}/media/${up.id}`);
  t.is(served.status, 200);
  t.deepEqual(served.bytes, Buffer.from(TEXT));

  t.is((await prompt(env, 'and again?')).code, 0);
  await turnEnded(env, 2);
  t.true(lastUserText(env).includes('the answer is 42'), 'history still reads the committed copy');
  t.false(lastUserText(env).includes('unavailable'));
});

test('an unknown file part is 40407 before anything is stored or journaled', async (t) => {
  const env = await startEngine(t);
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 7)]).toString('base64');
  const r = await prompt(env, { content: [
    { type: 'image', source: { kind: 'base64', media_type: 'image/png', data: png } },
    filePart('file_01JZZZZZZZZZZZZZZZZZZZZZZZ'),
  ] });
  t.is(r.code, 40407);
  t.is(r.details.id, 'file_01JZZZZZZZZZZZZZZZZZZZZZZZ');
  t.is((await prompt(env, { content: [filePart('not-an-id')] })).code, 40407);
  t.deepEqual(await stored(env), []);
  t.false(types(await journal(env)).includes('prompt.accepted'));
});

test('a file part checked fine but rejected later (unknown model) leaves nothing stored', async (t) => {
  const env = await startEngine(t);
  const up = await upload(env.s, Buffer.from(TEXT), 'notes.txt', 'text/plain');
  t.is((await prompt(env, { content: [filePart(up.id)], model: 'ghost/model' })).code, 40113);
  t.deepEqual(await stored(env), []);
  t.is(env.llm.requests.length, 0);
});

test('large text is truncated with a note; binary and non-UTF-8 files become a note naming the type', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText);
  const big = Buffer.from('x'.repeat(64 * 1024) + 'TAIL-MARKER');
  const bigUp = await upload(env.s, big, 'big.log', 'text/plain');
  const pdf = await upload(env.s, Buffer.from('%PDF-1.4 binary'), 'doc.pdf', 'application/pdf');
  const latin1 = await upload(env.s, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), 'old.txt', 'text/plain');
  const r = await prompt(env, { content: [filePart(bigUp.id, { name: 'big.log' }), filePart(pdf.id, { name: 'doc.pdf' }), filePart(latin1.id, { name: 'old.txt' })] });
  t.is(r.code, 0);
  t.is(r.data.content[1].media_type, 'application/pdf');
  await turnEnded(env);
  const sent = lastUserText(env);
  t.false(sent.includes('TAIL-MARKER'));
  t.true(sent.includes(`[truncated: first 65536 of ${big.length} bytes shown]`));
  t.regex(sent, /doc\.pdf.*binary content \(application\/pdf\) not included/);
  t.regex(sent, /old\.txt.*not valid UTF-8/);
  t.false(sent.includes('%PDF'));
});
