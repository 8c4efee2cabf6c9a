import { mkdir, readdir, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { serverFor, startTestServer, TEST_TOKEN, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const FILES = '/api/v1/files';
const auth = { Authorization: `Bearer ${TEST_TOKEN}` };

interface Fields {
  file?: { data: Blob; filename: string };
  name?: string;
  expires_in_sec?: string;
}

async function upload(s: TestServer, fields: Fields) {
  const form = new FormData();
  if (fields.file) form.append('file', fields.file.data, fields.file.filename);
  if (fields.name !== undefined) form.append('name', fields.name);
  if (fields.expires_in_sec !== undefined) form.append('expires_in_sec', fields.expires_in_sec);
  const res = await fetch(s.baseUrl + FILES, { method: 'POST', headers: auth, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

async function download(s: TestServer, id: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.baseUrl}${FILES}/${id}`, { headers: { ...auth, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

function envelopeOf(bytes: Buffer): any {
  return JSON.parse(bytes.toString('utf8'));
}

/** Every byte value, so a transcoding or truncation bug shows. */
const BINARY = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));

async function startServer(t: { teardown(fn: () => Promise<void>): void }) {
  const s = await serverFor(t);
  return s;
}

/** Run `fn` with env vars set, restoring them afterwards (use in serial tests only). */
function withEnv(t: { teardown(fn: () => void): void }, vars: Record<string, string>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

const exists = (p: string) => stat(p).then(() => true, () => false);

test.serial('an upload over SVC_CODE_UPLOAD_MAX_BYTES is 40001 with the limit, and leaves no temp files', async (t) => {
  withEnv(t, { SVC_CODE_UPLOAD_MAX_BYTES: '1024' });
  const s = await startServer(t);
  const big = await upload(s, { file: { data: new Blob([Buffer.alloc(64 * 1024, 1)]), filename: 'big.bin' } });
  t.is(big.status, 200);
  t.is(big.body.code, 40001);
  t.deepEqual(big.body.details, [{ field: 'file', message: 'exceeds 1024 bytes', limit: 1024 }]);
  const scratch = s.uploads.incomingDir;
  t.deepEqual(await readdir(scratch), []);
  t.deepEqual((await readdir(path.join(s.home, 'uploads'))).filter((n) => n.startsWith('file_')), []);

  const exact = await upload(s, { file: { data: new Blob([Buffer.alloc(1024, 2)]), filename: 'exact.bin' } });
  t.is(exact.body.code, 0);
  t.is(exact.body.data.size, 1024);
  t.deepEqual(await readdir(scratch), []);

  const doc = await s.get('/openapi.json');
  const op = (doc as any).paths[FILES].post;
  t.true(op.summary.includes('1 KiB'));
  const fields = op.requestBody.content['multipart/form-data'].schema;
  t.like(fields.properties.file, { type: 'string', format: 'binary' });
  t.deepEqual(fields.required, ['file']);
});

test.serial('expired files are 404 on GET and DELETE, 41003 for prompt-media lookups, and swept from disk', async (t) => {
  withEnv(t, { SVC_CODE_UPLOAD_SWEEP_INTERVAL_MS: '20' });
  const s = await startServer(t);
  s.clock.set('2030-01-01T00:00:00.000Z');
  const events = s.committed();

  const temp = await upload(s, { file: { data: new Blob(['soon gone']), filename: 'tmp.txt' }, expires_in_sec: '60' });
  t.is(temp.body.code, 0);
  t.is(temp.body.data.created_at, '2030-01-01T00:00:00.000Z');
  t.is(temp.body.data.expires_at, '2030-01-01T00:01:00.000Z');
  const keep = await upload(s, { file: { data: new Blob(['kept']), filename: 'keep.txt' }, expires_in_sec: '0' });
  t.false('expires_at' in keep.body.data, '0 means never expires');
  const id = temp.body.data.id;
  t.is((await download(s, id)).status, 200);

  s.clock.advance(60_000);
  const gone = await download(s, id);
  t.is(gone.status, 404);
  t.is(envelopeOf(gone.bytes).code, 40407);
  const del = await s.req('DELETE', `${FILES}/${id}`);
  t.is(del.status, 404);
  t.is(del.body.code, 40407);
  await t.throwsAsync(s.uploads.lookup(id), { message: /expired/, instanceOf: Error });
  t.is(await s.uploads.lookup(id).catch((e) => e.code), 41003);

  const dir = path.join(s.home, 'uploads', id);
  await until(async () => !(await exists(dir)), 30_000, 'the sweeper to remove the directory');
  t.is(await s.uploads.lookup(id).catch((e) => e.code), 41003, 'still expired (not unknown) after the sweep');
  t.is(await s.uploads.lookup('file_01ARZ3NDEKTSV4RRFFQ69G5FAV').catch((e) => e.code), 40407);
  await until(async () => events.some((e) => e.type === 'upload.expired'), 30_000, 'upload.expired');
  t.deepEqual(events.find((e) => e.type === 'upload.expired')!.payload, { id, expires_at: '2030-01-01T00:01:00.000Z' });
  t.is((await download(s, keep.body.data.id)).status, 200);
});

test('upload with a name: metadata, media type from the part, bytes, ETag, If-None-Match ignored', async (t) => {
  const s = await startServer(t);
  const events = s.committed();
  const res = await upload(s, { file: { data: new Blob([BINARY], { type: 'image/png' }), filename: 'orig.bin' }, name: 'Screenshot 1.png' });
  t.is(res.status, 200);
  t.is(res.body.code, 0);
  const meta = res.body.data;
  t.regex(meta.id, /^file_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.is(meta.name, 'Screenshot 1.png');
  t.is(meta.media_type, 'image/png');
  t.is(meta.size, BINARY.length);
  t.false(Number.isNaN(Date.parse(meta.created_at)));
  t.false('expires_at' in meta);

  const got = await download(s, meta.id);
  t.is(got.status, 200);
  t.deepEqual(got.bytes, BINARY);
  t.is(got.headers.get('content-type'), 'image/png');
  t.is(got.headers.get('content-length'), String(BINARY.length));
  t.regex(got.headers.get('content-disposition') ?? '', /^inline; filename="Screenshot 1.png"/);
  const tag = got.headers.get('etag');
  t.truthy(tag);
  const again = await download(s, meta.id, { 'If-None-Match': tag! });
  t.is(again.status, 200, 'If-None-Match is ignored');
  t.deepEqual(again.bytes, BINARY);

  const stored = events.find((e) => e.type === 'upload.stored');
  t.is(stored?.stream, '__global__');
  t.deepEqual(stored?.payload, meta);
});

test('without a name the uploaded filename is used; no part type -> guessed from the name', async (t) => {
  const s = await startServer(t);
  const res = await upload(s, { file: { data: new Blob(['plain']), filename: 'a.txt' } });
  t.is(res.body.data.name, 'a.txt');
  t.is(res.body.data.media_type, 'application/octet-stream', 'fetch sends application/octet-stream for an untyped Blob');

  // A hand-written body whose file part has no Content-Type header.
  const boundary = 'xBoundary42';
  const body = [
    `--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="notes.md"', '', '# title', `--${boundary}--`, '',
  ].join('\r\n');
  const raw = await fetch(s.baseUrl + FILES, { method: 'POST', headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body });
  const meta = ((await raw.json()) as any).data;
  t.is(meta.name, 'notes.md');
  t.is(meta.media_type, 'text/markdown');
  t.is((await download(s, meta.id)).bytes.toString(), '# title');

  const empty = await upload(s, { file: { data: new Blob([]), filename: 'empty.txt' } });
  t.is(empty.body.code, 0);
  t.is(empty.body.data.size, 0);
  t.is((await download(s, empty.body.data.id)).bytes.length, 0);
});

test('Range requests: 206 with Content-Range and the exact bytes; 416 when unsatisfiable', async (t) => {
  const s = await startServer(t);
  const { id } = (await upload(s, { file: { data: new Blob([BINARY]), filename: 'b.bin' } })).body.data;
  const part = await download(s, id, { Range: 'bytes=100-199' });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 100-199/${BINARY.length}`);
  t.deepEqual(part.bytes, BINARY.subarray(100, 200));
  const suffix = await download(s, id, { Range: 'bytes=-10' });
  t.is(suffix.status, 206);
  t.deepEqual(suffix.bytes, BINARY.subarray(BINARY.length - 10));
  const bad = await download(s, id, { Range: 'bytes=5000-6000' });
  t.is(bad.status, 416);
  t.is(bad.headers.get('content-range'), `bytes */${BINARY.length}`);
});

test('unknown ids are real HTTP 404 with a 40407 envelope; malformed ids are 40001 at HTTP 200', async (t) => {
  const s = await startServer(t);
  const unknown = 'file_01ARZ3NDEKTSV4RRFFQ69G5FAV';
  const res = await download(s, unknown);
  t.is(res.status, 404);
  const env = envelopeOf(res.bytes);
  t.is(env.code, 40407);
  t.is(env.data, null);
  t.truthy(env.request_id);
  const del = await s.req('DELETE', `${FILES}/${unknown}`);
  t.is(del.status, 404);
  t.is(del.body.code, 40407);

  const malformed = await download(s, 'not-a-file-id');
  t.is(malformed.status, 200);
  t.is(envelopeOf(malformed.bytes).code, 40001);
  t.is(envelopeOf(malformed.bytes).details[0].field, 'file_id');
  const traversal = await download(s, '..%2Ftoken');
  t.is(envelopeOf(traversal.bytes).code, 40001, 'never serves a file outside the store');
});

test('DELETE removes the file: {deleted:true}, then GET and DELETE are 404', async (t) => {
  const s = await startServer(t);
  const events = s.committed();
  const { id } = (await upload(s, { file: { data: new Blob(['bye']), filename: 'x.txt' } })).body.data;
  const del = await s.req('DELETE', `${FILES}/${id}`);
  t.is(del.status, 200);
  t.is(del.body.code, 0);
  t.deepEqual(del.body.data, { deleted: true });
  t.false(await exists(path.join(s.home, 'uploads', id)));
  t.is((await download(s, id)).status, 404);
  const twice = await s.req('DELETE', `${FILES}/${id}`);
  t.is(twice.status, 404);
  t.is(twice.body.code, 40407);
  t.deepEqual(events.filter((e) => e.type === 'upload.deleted').map((e) => e.payload), [{ id }]);
});

test('bad uploads are 40001 with details', async (t) => {
  const s = await startServer(t);
  const noFile = await upload(s, { name: 'x' });
  t.is(noFile.status, 200);
  t.is(noFile.body.code, 40001);
  t.deepEqual(noFile.body.details.map((d: any) => d.field), ['file']);

  const json = await s.req('POST', FILES, { name: 'x' });
  t.is(json.body.code, 40001);
  t.deepEqual(json.body.details, [{ field: 'body', message: 'must be multipart/form-data' }]);

  for (const bad of ['-1', 'abc', '1e3', '']) {
    const res = await upload(s, { file: { data: new Blob(['x']), filename: 'x' }, expires_in_sec: bad });
    t.is(res.body.code, 40001, `expires_in_sec=${JSON.stringify(bad)}`);
    t.is(res.body.details[0].field, 'expires_in_sec');
  }
  const emptyName = await upload(s, { file: { data: new Blob(['x']), filename: 'x' }, name: '' });
  t.is(emptyName.body.details[0].field, 'name');

  const form = new FormData();
  form.append('file', new Blob(['1']), 'one');
  form.append('file', new Blob(['2']), 'two');
  const two = (await (await fetch(s.baseUrl + FILES, { method: 'POST', headers: auth, body: form })).json()) as any;
  t.is(two.code, 40001);
  t.is(two.details[0].field, 'file');

  const fractional = await upload(s, { file: { data: new Blob(['x']), filename: 'x' }, expires_in_sec: '1.5' });
  t.is(fractional.body.code, 0);
  t.is(Date.parse(fractional.body.data.expires_at) - Date.parse(fractional.body.data.created_at), 1500);
  const scratch = s.uploads.incomingDir;
  t.deepEqual(await readdir(scratch), [], 'rejected uploads leave no temp files');
});

test('upload events are journaled but not broadcast over the WebSocket', async (t) => {
  const s = await startServer(t);
  const ws = await s.ws();
  t.teardown(() => ws.close());
  await upload(s, { file: { data: new Blob(['quiet']), filename: 'q.txt' } });
  // A broadcast global event after the upload: once it arrives, an upload frame would have too.
  const { tempDir } = await import('../helpers/fs.ts');
  await s.post('/api/v1/workspaces', { root: await tempDir() });
  await ws.waitFor((f) => f.type === 'event.workspace.created');
  t.false(ws.frames.some((f) => String(f.type).startsWith('upload.')));
});

test('files survive a restart', async (t) => {
  const first = await startTestServer({ keepHome: true });
  const { id } = (await upload(first, { file: { data: new Blob([BINARY], { type: 'application/x-thing' }), filename: 'p.bin' }, name: 'kept.bin' })).body.data;
  const gone = (await upload(first, { file: { data: new Blob(['del']), filename: 'd' } })).body.data.id;
  await first.req('DELETE', `${FILES}/${gone}`);
  // Stored "in 2000" with a one-minute lifetime: long expired by the time the next server starts.
  first.clock.set('2000-01-01T00:00:00.000Z');
  const stale = (await upload(first, { file: { data: new Blob(['old']), filename: 'o' }, expires_in_sec: '60' })).body.data.id;
  // Scratch of a process that died mid-upload (no such pid: Linux pids stay below 2^22).
  const crashed = path.join(first.home, 'uploads', '.incoming', '999999999-01ARZ3NDEKTSV4RRFFQ69G5FAV');
  await mkdir(crashed);
  await writeFile(path.join(crashed, 'partial'), 'half an upload');
  const s = await first.restart();
  t.teardown(async () => {
    await s.stop();
    const { rm } = await import('node:fs/promises');
    await rm(s.home, { recursive: true, force: true });
  });
  const got = await download(s, id);
  t.is(got.status, 200);
  t.deepEqual(got.bytes, BINARY);
  t.is(got.headers.get('content-type'), 'application/x-thing');
  t.is((await s.uploads.lookup(id)).meta.name, 'kept.bin');
  t.is((await download(s, gone)).status, 404);
  t.false(await exists(crashed));
  await until(async () => !(await exists(path.join(s.home, 'uploads', stale))), 30_000, 'the start-up sweep');
  t.is(await s.uploads.lookup(stale).catch((e) => e.code), 41003);
});

test('a storage failure on download is a real HTTP 500 with an envelope', async (t) => {
  const s = await startServer(t);
  const { id } = (await upload(s, { file: { data: new Blob(['x']), filename: 'x' } })).body.data;
  const content = path.join(s.home, 'uploads', id, 'content');
  await unlink(content);
  await symlink(content, content); // stat -> ELOOP
  const res = await download(s, id);
  t.is(res.status, 500);
  t.is(envelopeOf(res.bytes).code, 50003);
});
