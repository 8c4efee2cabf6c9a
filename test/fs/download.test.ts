import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import test from 'ava';
import { BINARY_BYTES, startFsFixture, type FsFixture } from '../helpers/fs-fixture.ts';

function download(f: FsFixture, rel: string, headers: Record<string, string> = {}, query = '') {
  const url = `${f.s.baseUrl}/api/v1/sessions/${f.sessionId}/fs/${rel}:download${query}`;
  return fetch(url, { headers: { Authorization: `Bearer ${f.s.token}`, ...headers } });
}

/** node:http GET: fetch() adds `Cache-Control: no-cache` to conditional requests, which rules out a 304. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

test('download: bytes, headers, nested and encoded paths', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const res = await download(f, 'README.md');
  t.is(res.status, 200);
  t.is(await res.text(), '# Title\n\nline three\n');
  t.is(res.headers.get('accept-ranges'), 'bytes');
  t.regex(res.headers.get('content-disposition') ?? '', /attachment; filename="README.md"/);
  const read = await f.fs('read', { path: 'README.md' });
  t.is(res.headers.get('etag'), read.data.etag, 'fs:read etag equals the download ETag');
  const nested = await download(f, 'src/deep/nested/file.md');
  t.is(await nested.text(), 'deep\n');
  const bin = await download(f, 'bin.dat');
  t.deepEqual(Buffer.from(await bin.arrayBuffer()), BINARY_BYTES);
  await writeFile(path.join(f.ws, 'my file é.txt'), 'spaced\n');
  const spaced = await download(f, encodeURIComponent('my file é.txt'));
  t.is(await spaced.text(), 'spaced\n');
  const viaLink = await download(f, 'link-in');
  t.is(await viaLink.text(), 'export const u = 2;\n');
  const big = await download(f, 'big.bin', { Range: 'bytes=0-9' });
  t.is(big.status, 206, 'no size cap on downloads');
  t.is(big.headers.get('content-range'), `bytes 0-9/${11 * 1024 * 1024}`);
  t.is((await big.arrayBuffer()).byteLength, 10);
  t.is((await download(f, 'README.md', {}, '?runtime_id=local')).status, 200);
});

test('download: Range gives 206, a matching ETag 304', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const part = await download(f, 'README.md', { Range: 'bytes=2-6' });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), 'bytes 2-6/20');
  t.is(await part.text(), 'Title');
  const tag = (await download(f, 'README.md')).headers.get('etag')!;
  const url = `${f.s.baseUrl}/api/v1/sessions/${f.sessionId}/fs/README.md:download`;
  const auth = { Authorization: `Bearer ${f.s.token}` };
  const cached = await rawGet(url, { ...auth, 'If-None-Match': tag });
  t.is(cached.status, 304);
  t.is(cached.body, '');
  const stale = await rawGet(url, { ...auth, 'If-None-Match': 'W/"stale"' });
  t.is(stale.status, 200);
  t.is(stale.body, '# Title\n\nline three\n');
  // Envelope-only routes never answer 416: an unsatisfiable Range is ignored and the whole file sent.
  const unsatisfiable = await download(f, 'README.md', { Range: 'bytes=100-200' });
  t.is(unsatisfiable.status, 200);
  t.is(await unsatisfiable.text(), '# Title\n\nline three\n');
});

test('download errors are envelopes with HTTP 200', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const envelope = async (res: Response) => {
    t.is(res.status, 200);
    return (await res.json()) as { code: number; details?: any };
  };
  t.is((await envelope(await download(f, 'missing.txt'))).code, 40409);
  const dir = await envelope(await download(f, 'src'));
  t.is(dir.code, 40409);
  t.regex(JSON.stringify(dir.details), /directory/);
  t.is((await envelope(await download(f, 'link-out/secret.txt'))).code, 41304);
  t.is((await envelope(await download(f, encodeURIComponent('../x.txt')))).code, 41304);
  t.is((await envelope(await download(f, encodeURIComponent(f.outside + '/secret.txt')))).code, 41304);
  t.is((await envelope(await download(f, ''))).code, 40001);
  t.is((await envelope(await download(f, '%20'))).code, 40001);
  t.is((await envelope(await download(f, 'README.md', {}, '?runtime_id=cloud'))).code, 40420);
  const noSession = await fetch(`${f.s.baseUrl}/api/v1/sessions/session_nope/fs/README.md:download`, { headers: { Authorization: `Bearer ${f.s.token}` } });
  t.is((await envelope(noSession)).code, 40401);
  const noAuth = await fetch(`${f.s.baseUrl}/api/v1/sessions/${f.sessionId}/fs/README.md:download`);
  t.is(noAuth.status, 401);
});
