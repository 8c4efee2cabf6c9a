import test from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { findSessionMedia, storeSessionMedia } from '../../src/media/session-media.ts';
import { tempDir } from '../helpers/fs.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';
import { rawGet, uploadFile } from '../helpers/files.ts';

async function setup(t: any): Promise<{ s: TestServer; id: string }> {
  const s = await serverFor(t);
  const r = await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } });
  return { s, id: r.data.id };
}

const raw = rawGet;
const upload = async (s: TestServer, bytes: Buffer, name: string, type: string) => (await uploadFile(s, bytes, name, type)).id;

const BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

test('an id not committed to the session falls back to staged uploads, with Range (206)', async (t) => {
  const { s, id } = await setup(t);
  const fileId = await upload(s, BYTES, 'pic.png', 'image/png');
  const full = await raw(s, `/api/v1/sessions/${id}/media/${fileId}`);
  t.is(full.status, 200);
  t.is(full.headers.get('content-type'), 'image/png');
  t.deepEqual(full.bytes, BYTES);

  const part = await raw(s, `/api/v1/sessions/${id}/media/${fileId}`, { Range: 'bytes=10-19' });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), 'bytes 10-19/256');
  t.deepEqual(part.bytes, BYTES.subarray(10, 20));
});

test('committed session media is stored decoded and served first', async (t) => {
  const { s, id } = await setup(t);
  const meta = await storeSessionMedia(s, id, { media_type: 'image/webp', data: `data:image/webp;base64,${BYTES.toString('base64')}` });
  t.regex(meta.id, /^media_[0-9A-Z]{26}$/);
  t.like(meta, { session_id: id, media_type: 'image/webp', size: 256 });
  t.deepEqual(await readFile(path.join(s.home, 'sessions-media', id, meta.id)), BYTES);
  t.is((await findSessionMedia(s, id, meta.id))?.meta.id, meta.id);
  t.is(await findSessionMedia(s, id, '../../etc'), undefined);

  const got = await raw(s, `/api/v1/sessions/${id}/media/${meta.id}`);
  t.is(got.status, 200);
  t.is(got.headers.get('content-type'), 'image/webp');
  t.deepEqual(got.bytes, BYTES);
  const tail = await raw(s, `/api/v1/sessions/${id}/media/${meta.id}`, { Range: 'bytes=-6' });
  t.is(tail.status, 206);
  t.deepEqual(tail.bytes, BYTES.subarray(250));

  // Media of one session is not reachable through another.
  const other = (await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } })).data.id;
  const cross = await raw(s, `/api/v1/sessions/${other}/media/${meta.id}`);
  t.is(cross.status, 404);
  t.is(JSON.parse(cross.bytes.toString()).code, 40407);
});

test('storeSessionMedia refuses bad input with 40001', async (t) => {
  const { s, id } = await setup(t);
  const bad = await t.throwsAsync(storeSessionMedia(s, id, { media_type: 'image/png', data: 'not base64 !!' }));
  t.is((bad as any).code, 40001);
  const type = await t.throwsAsync(storeSessionMedia(s, id, { media_type: 'png', data: 'AAAA' }));
  t.is((type as any).code, 40001);
});

test('a missing session or file is a real HTTP 404 with an envelope body', async (t) => {
  const { s, id } = await setup(t);
  const fileId = await upload(s, BYTES, 'a.bin', 'application/octet-stream');
  const noSession = await s.req('GET', `/api/v1/sessions/session_nope/media/${fileId}`);
  t.is(noSession.status, 404);
  t.like(noSession.body, { code: 40401, data: null });
  t.truthy(noSession.body.request_id);

  for (const missing of ['file_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'media_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'whatever']) {
    const r = await s.req('GET', `/api/v1/sessions/${id}/media/${missing}`);
    t.is(r.status, 404, missing);
    t.is(r.body.code, 40407, missing);
    t.truthy(r.body.request_id);
  }
});
