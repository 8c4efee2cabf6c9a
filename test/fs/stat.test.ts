import { execFileSync } from 'node:child_process';
import { access, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { startFsFixture } from '../helpers/fs-fixture.ts';

test('stat: files are sniffed, directories counted, symlinks described as links', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const readme = await f.fs('stat', { path: 'README.md' });
  t.is(readme.code, 0, JSON.stringify(readme));
  t.like(readme.data, { path: 'README.md', name: 'README.md', kind: 'file', size: 20, is_binary: false, mime: 'text/markdown', language_id: 'markdown' });
  await writeFile(path.join(f.ws, 'blob'), Buffer.from([1, 0, 2]));
  t.like((await f.fs('stat', { path: 'blob' })).data, { kind: 'file', is_binary: true, mime: 'application/octet-stream' });
  const listed = (await f.fs('list')).data.items.find((e: any) => e.name === 'blob');
  t.false('is_binary' in listed, 'list guesses by extension only: unknown here');
  const root = await f.fs('stat', { path: '.' });
  t.like(root.data, { path: '.', name: path.basename(f.ws), kind: 'directory', child_count: 10 });
  t.like((await f.fs('stat', { path: 'src/' })).data, { path: 'src', kind: 'directory', child_count: 3 });
  t.like((await f.fs('stat', { path: 'link-in' })).data, { kind: 'symlink', is_symlink_to: path.join(f.ws, 'src', 'util.ts') });
  t.like((await f.fs('stat', { path: 'big.bin' })).data, { size: 11 * 1024 * 1024, is_binary: true });
  execFileSync('mkfifo', [path.join(f.ws, 'pipe')]);
  const fifo = await f.fs('stat', { path: 'pipe' });
  t.like(fifo.data, { kind: 'file', size: 0 });
  t.false('is_binary' in fifo.data, 'a FIFO is never opened to sniff it');
});

test('stat errors', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  t.is((await f.fs('stat', { path: 'nope.txt' })).code, 40409);
  t.is((await f.fs('stat', { path: 'link-out' })).code, 41304);
  t.is((await f.fs('stat', { path: '../' })).code, 41304);
  t.is((await f.fs('stat', { path: f.outside })).code, 41304);
  t.is((await f.fs('stat', {})).code, 40001);
  t.is((await f.fs('stat', { path: 'README.md', runtime_id: 'other' })).code, 40420);
});

test('stat_many: entry or null per path as given', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const r = await f.fs('stat_many', { paths: ['README.md', 'nope', '../x', 'link-out', 'src', './src'] });
  t.is(r.code, 0, JSON.stringify(r));
  const e = r.data.entries;
  t.deepEqual(Object.keys(e).sort(), ['../x', './src', 'README.md', 'link-out', 'nope', 'src']);
  t.like(e['README.md'], { kind: 'file', is_binary: false });
  t.is(e.nope, null);
  t.is(e['../x'], null);
  t.is(e['link-out'], null);
  t.like(e.src, { kind: 'directory', child_count: 3 });
  t.is(e['./src'].path, 'src');
  t.is((await f.fs('stat_many', { paths: [] })).code, 40001);
  t.is((await f.fs('stat_many', { paths: Array.from({ length: 1001 }, (_, i) => `f${i}`) })).code, 40001);
  const many = await f.fs('stat_many', { paths: Array.from({ length: 1000 }, (_, i) => `f${i}`) });
  t.is(Object.keys(many.data.entries).length, 1000);
});

test('mkdir: creates, refuses existing, needs the parent unless recursive', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const made = await f.fs('mkdir', { path: 'fresh' });
  t.is(made.code, 0, JSON.stringify(made));
  t.like(made.data, { path: 'fresh', name: 'fresh', kind: 'directory', child_count: 0 });
  await access(path.join(f.ws, 'fresh'));
  t.is((await f.fs('mkdir', { path: 'fresh' })).code, 40919);
  t.is((await f.fs('mkdir', { path: 'README.md' })).code, 40919);
  const orphan = await f.fs('mkdir', { path: 'a/b/c' });
  t.is(orphan.code, 40409);
  t.is((await f.fs('mkdir', { path: 'README.md/sub' })).code, 40409);
  const deep = await f.fs('mkdir', { path: 'a/b/c', recursive: true });
  t.like(deep.data, { path: 'a/b/c', kind: 'directory' });
  t.is((await f.fs('mkdir', { path: 'a/b/c', recursive: true })).code, 0, 'recursive accepts an existing directory');
  t.is((await f.fs('mkdir', { path: 'README.md', recursive: true })).code, 40919);
});

test('mkdir errors: escapes, validation, runtime', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  t.is((await f.fs('mkdir', { path: '../evil' })).code, 41304);
  t.is((await f.fs('mkdir', { path: 'link-out/sub', recursive: true })).code, 41304);
  await t.throwsAsync(access(path.join(f.outside, 'sub')));
  t.is((await f.fs('mkdir', { path: 'x', recursive: 'yes' })).code, 40001);
  t.is((await f.fs('mkdir', { path: 'x', runtime_id: 'r2' })).code, 40420);
});
