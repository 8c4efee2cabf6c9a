import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { BIG_FILE_BYTES, BINARY_BYTES, LATIN1_TEXT, startFsFixture, UTF16_TEXT } from '../helpers/fs-fixture.ts';

test('read a text file: content and metadata', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const r = await f.fs('read', { path: 'README.md' });
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data, {
    path: 'README.md', content: '# Title\n\nline three\n', encoding: 'utf-8', size: 20, truncated: false,
    etag: r.data.etag, mime: 'text/markdown', language_id: 'markdown', line_count: 3, is_binary: false,
  });
  const st = await f.fs('stat', { path: 'README.md' });
  t.is(r.data.etag, st.data.etag);
  const ts = await f.fs('read', { path: './src/index.ts' });
  t.like(ts.data, { path: 'src/index.ts', content: 'export const a = 42;\n', language_id: 'typescript', mime: 'text/typescript', line_count: 1 });
});

test('read offset and length: a byte window, truncated when the file goes on', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const mid = await f.fs('read', { path: 'README.md', offset: 2, length: 5 });
  t.like(mid.data, { content: 'Title', truncated: true, size: 20, line_count: 3 });
  const tail = await f.fs('read', { path: 'README.md', offset: 9 });
  t.like(tail.data, { content: 'line three\n', truncated: false });
  const end = await f.fs('read', { path: 'README.md', offset: 20, length: 1 });
  t.like(end.data, { content: '', truncated: false });
  const past = await f.fs('read', { path: 'README.md', offset: 100 });
  t.like(past.data, { content: '', truncated: false });
  const exact = await f.fs('read', { path: 'README.md', length: 20 });
  t.false(exact.data.truncated);
  const short = await f.fs('read', { path: 'README.md', length: 19 });
  t.true(short.data.truncated);
});

test('read encodings: auto picks base64 for binary; utf-8 refuses binary; base64 on demand', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const bin = await f.fs('read', { path: 'bin.dat' });
  t.like(bin.data, { encoding: 'base64', content: BINARY_BYTES.toString('base64'), is_binary: true, size: BINARY_BYTES.length, mime: 'application/octet-stream' });
  t.false('line_count' in bin.data);
  const forced = await f.fs('read', { path: 'bin.dat', encoding: 'utf-8' });
  t.is(forced.code, 40907);
  const window = await f.fs('read', { path: 'bin.dat', encoding: 'base64', offset: 4, length: 3 });
  t.is(window.data.content, BINARY_BYTES.subarray(4, 7).toString('base64'));
  t.true(window.data.truncated);
  const text64 = await f.fs('read', { path: 'README.md', encoding: 'base64' });
  t.like(text64.data, { encoding: 'base64', is_binary: false, line_count: 3 });
  t.is(Buffer.from(text64.data.content, 'base64').toString(), '# Title\n\nline three\n');
  // Binary with an unknown extension is found by sniffing, not by name.
  await writeFile(path.join(f.ws, 'blob'), Buffer.from([1, 2, 0, 3]));
  t.like((await f.fs('read', { path: 'blob' })).data, { encoding: 'base64', is_binary: true, mime: 'application/octet-stream' });
});

test('read transcodes latin1 and UTF-16 (BOM) text to utf-8', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const latin = await f.fs('read', { path: 'latin1.txt' });
  t.like(latin.data, { content: LATIN1_TEXT, encoding: 'utf-8', is_binary: false, line_count: 2, size: LATIN1_TEXT.length, mime: 'text/plain' });
  const forced = await f.fs('read', { path: 'latin1.txt', encoding: 'utf-8' });
  t.is(forced.data.content, LATIN1_TEXT);
  const utf16 = await f.fs('read', { path: 'utf16.txt' });
  t.like(utf16.data, { content: UTF16_TEXT, encoding: 'utf-8', is_binary: false, line_count: 2, size: 2 + UTF16_TEXT.length * 2 });
  await writeFile(path.join(f.ws, 'bom8.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('ok\n')]));
  t.is((await f.fs('read', { path: 'bom8.txt' })).data.content, 'ok\n');
  await writeFile(path.join(f.ws, 'empty.txt'), '');
  t.like((await f.fs('read', { path: 'empty.txt' })).data, { content: '', size: 0, line_count: 0, is_binary: false, truncated: false });
});

test('read errors: over 10 MiB, directory, missing, escapes', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const big = await f.fs('read', { path: 'big.bin', length: 10 });
  t.is(big.code, 41302);
  t.deepEqual(big.details, { path: 'big.bin', size: BIG_FILE_BYTES, limit: 10 * 1024 * 1024 });
  t.is((await f.fs('read', { path: 'src' })).code, 40906);
  t.is((await f.fs('read', { path: '.' })).code, 40906);
  t.is((await f.fs('read', { path: 'missing.txt' })).code, 40409);
  execFileSync('mkfifo', [path.join(f.ws, 'pipe')]);
  const fifo = await f.fs('read', { path: 'pipe' });
  t.is(fifo.code, 40001, 'a FIFO is refused, never opened (opening it would block)');
  t.is(fifo.details[0].message, 'not a regular file');
  t.is((await f.fs('read', { path: '../etc/passwd' })).code, 41304);
  t.is((await f.fs('read', { path: '/etc/passwd' })).code, 41304);
  t.is((await f.fs('read', { path: 'link-out/secret.txt' })).code, 41304);
  t.is((await f.fs('read', { path: 'link-in' })).data.content, 'export const u = 2;\n', 'a symlink inside the workspace is followed');
  t.is((await f.fs('read', { path: 'README.md', runtime_id: 'ssh' })).code, 40420);
  t.is((await f.s.post('/api/v1/sessions/session_missing/fs:read', { path: 'README.md' })).code, 40401);
});

test('read validation: path, offset, length, encoding', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const cases: [unknown, string][] = [
    [{}, 'path'],
    [{ path: '' }, 'path'],
    [{ path: 'README.md', offset: -1 }, 'offset'],
    [{ path: 'README.md', length: 0 }, 'length'],
    [{ path: 'README.md', length: 10485761 }, 'length'],
    [{ path: 'README.md', encoding: 'latin1' }, 'encoding'],
  ];
  for (const [body, field] of cases) {
    const r = await f.fs('read', body);
    t.is(r.code, 40001, JSON.stringify(body));
    t.is(r.details[0].field, field);
  }
  t.is((await f.fs('read', { path: 'README.md', length: 10485760 })).code, 0);
});
