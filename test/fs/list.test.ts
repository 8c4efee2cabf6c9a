import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { tempDir } from '../helpers/fs.ts';
import { names, startFsFixture } from '../helpers/fs-fixture.ts';

const VISIBLE_TOP = ['src', 'big.bin', 'bin.dat', 'latin1.txt', 'link-in', 'link-out', 'new.txt', 'README.md', 'utf16.txt'];

test('list defaults: type_first, hidden and gitignored entries skipped, entry fields', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const r = await f.fs('list');
  t.is(r.code, 0, JSON.stringify(r));
  t.false(r.data.truncated);
  t.false('children_by_path' in r.data);
  t.deepEqual(names(r.data.items), VISIBLE_TOP);
  const byName = Object.fromEntries(r.data.items.map((e: any) => [e.name, e]));
  const src = byName.src;
  t.is(src.kind, 'directory');
  t.is(src.path, 'src');
  t.is(src.child_count, 3, 'deep, index.ts, util.ts: .gitignore hidden, generated.ts ignored by src/.gitignore');
  t.false('size' in src);
  const readme = byName['README.md'];
  t.like(readme, { path: 'README.md', kind: 'file', size: 20, mime: 'text/markdown', language_id: 'markdown', is_binary: false });
  t.regex(readme.etag, /^W\/"/);
  t.false(Number.isNaN(Date.parse(readme.modified_at)));
  t.false('git_status' in readme, 'git_status only with include_git_status');
  t.like(byName['bin.dat'], { is_binary: true });
  t.like(byName['link-out'], { kind: 'symlink', is_symlink_to: f.outside });
  t.like(byName['link-in'], { kind: 'symlink', is_symlink_to: path.join(f.ws, 'src', 'util.ts') });
  t.false('size' in byName['link-out']);
});

test('list: show_hidden and follow_gitignore', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const hidden = await f.fs('list', { show_hidden: true });
  t.deepEqual(names(hidden.data.items), ['.config', 'src', '.gitignore', '.hidden-file', ...VISIBLE_TOP.slice(1)]);
  const all = await f.fs('list', { show_hidden: true, follow_gitignore: false });
  t.true(names(all.data.items).includes('.git'));
  t.true(names(all.data.items).includes('build'));
  t.true(names(all.data.items).includes('debug.log'));
  const noIgnore = await f.fs('list', { follow_gitignore: false });
  t.deepEqual(names(noIgnore.data.items).filter((n) => n.startsWith('.')), []);
  t.true(names(noIgnore.data.items).includes('debug.log'));
  const src = await f.fs('list', { path: 'src', follow_gitignore: false });
  t.deepEqual(names(src.data.items), ['deep', 'generated.ts', 'index.ts', 'util.ts']);
  t.is(src.data.items[0].path, 'src/deep');
});

test('list sorts', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const asc = await f.fs('list', { sort: 'name_asc' });
  t.deepEqual(names(asc.data.items), ['big.bin', 'bin.dat', 'latin1.txt', 'link-in', 'link-out', 'new.txt', 'README.md', 'src', 'utf16.txt']);
  const desc = await f.fs('list', { sort: 'name_desc' });
  t.deepEqual(names(desc.data.items), [...names(asc.data.items)].reverse());
  const size = await f.fs('list', { sort: 'size_desc' });
  t.deepEqual(names(size.data.items).slice(0, 2), ['big.bin', 'utf16.txt']);
  t.deepEqual(names(size.data.items).slice(-3), ['link-in', 'link-out', 'src'], 'directories and symlinks after files, by name');
  const old = new Date('2001-01-01T00:00:00Z');
  await utimes(path.join(f.ws, 'README.md'), old, new Date('2030-01-01T00:00:00Z'));
  await utimes(path.join(f.ws, 'new.txt'), old, old);
  const mtime = await f.fs('list', { sort: 'mtime_desc' });
  t.is(names(mtime.data.items)[0], 'README.md');
  t.is(names(mtime.data.items).at(-1), 'new.txt');
  const bad = await f.fs('list', { sort: 'random' });
  t.is(bad.code, 40001);
  t.is(bad.details[0].field, 'sort');
});

test('list depth fills children_by_path breadth first; limit truncates', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const deep = await f.fs('list', { path: 'src', depth: 3 });
  t.is(deep.code, 0);
  t.deepEqual(names(deep.data.items), ['deep', 'index.ts', 'util.ts']);
  t.deepEqual(Object.keys(deep.data.children_by_path).sort(), ['src/deep', 'src/deep/nested']);
  t.deepEqual(names(deep.data.children_by_path['src/deep']), ['nested']);
  t.is(deep.data.children_by_path['src/deep/nested'][0].path, 'src/deep/nested/file.md');
  t.is(deep.data.children_by_path['src/deep/nested'][0].child_count, undefined);
  t.is(deep.data.children_by_path['src/deep'][0].child_count, 1, 'child_count also at the deepest level');
  t.false(deep.data.truncated);

  const two = await f.fs('list', { path: 'src', depth: 2 });
  t.deepEqual(Object.keys(two.data.children_by_path), ['src/deep']);

  const capped = await f.fs('list', { limit: 3 });
  t.true(capped.data.truncated);
  t.deepEqual(names(capped.data.items), VISIBLE_TOP.slice(0, 3));

  // 9 top-level entries + 3 in src = 12; the 13th would be src/deep's child.
  const tree = await f.fs('list', { depth: 3, limit: 12 });
  t.is(tree.data.items.length, 9);
  t.deepEqual(names(tree.data.children_by_path.src), ['deep', 'index.ts', 'util.ts']);
  t.false('src/deep' in tree.data.children_by_path);
  t.true(tree.data.truncated);
  const exact = await f.fs('list', { depth: 3, limit: 13 });
  t.false(exact.data.truncated);
  t.is(exact.data.children_by_path['src/deep'].length, 1);

  for (const body of [{ depth: 0 }, { depth: 11 }, { limit: 0 }, { limit: 1001 }, { depth: 1.5 }]) {
    const r = await f.fs('list', body);
    t.is(r.code, 40001, JSON.stringify(body));
  }
});

test('list exclude_globs: base-name and path globs', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const r = await f.fs('list', { depth: 2, exclude_globs: ['*.txt', 'src/deep'] });
  t.deepEqual(names(r.data.items), ['src', 'big.bin', 'bin.dat', 'link-in', 'link-out', 'README.md']);
  t.deepEqual(names(r.data.children_by_path.src), ['index.ts', 'util.ts']);
  t.is(r.data.items[0].child_count, 2);
  const all = await f.fs('list', { path: 'src', exclude_globs: ['src/**'] });
  t.deepEqual(all.data.items, []);
});

test('list include_git_status', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const r = await f.fs('list', { include_git_status: true, follow_gitignore: false, depth: 2 });
  const st = Object.fromEntries(r.data.items.map((e: any) => [e.name, e.git_status]));
  t.like(st, { 'README.md': 'clean', 'new.txt': 'untracked', 'debug.log': 'ignored', build: 'ignored', src: 'modified' });
  const src = Object.fromEntries(r.data.children_by_path.src.map((e: any) => [e.name, e.git_status]));
  t.like(src, { 'index.ts': 'modified', 'util.ts': 'clean', 'generated.ts': 'ignored', deep: 'clean' });
  t.is(r.data.children_by_path.build[0].git_status, 'ignored', 'inside a collapsed ignored directory');
});

test('list errors: missing, not a directory, escapes, runtime, session', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  t.is((await f.fs('list', { path: 'nope' })).code, 40409);
  const file = await f.fs('list', { path: 'README.md' });
  t.is(file.code, 40409);
  t.is(file.details.reason, 'not_a_directory');
  t.is((await f.fs('list', { path: '..' })).code, 41304);
  t.is((await f.fs('list', { path: f.outside })).code, 41304);
  t.is((await f.fs('list', { path: 'link-out' })).code, 41304);
  t.is((await f.fs('list', { runtime_id: 'remote-1' })).code, 40420);
  t.is((await f.fs('list', { runtime_id: 'local' })).code, 0);
  t.is((await f.s.post('/api/v1/sessions/session_nope/fs:list', {})).code, 40401);
  t.is((await f.fs('list', { path: 5 })).code, 40001);
  t.is((await f.fs('no_such_action')).code, 40001);
});

test('list_many: results per path, truncated_paths, partial_errors', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const r = await f.fs('list_many', { paths: ['src', '.', 'nope', '../x', 'README.md'], limit: 3 });
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(names(r.data.results.src), ['deep', 'index.ts', 'util.ts']);
  t.deepEqual(names(r.data.results['.']), VISIBLE_TOP.slice(0, 3));
  t.deepEqual(r.data.truncated_paths, ['.']);
  t.deepEqual(Object.keys(r.data.partial_errors).sort(), ['../x', 'README.md', 'nope']);
  t.is(r.data.partial_errors.nope.code, 40409);
  t.is(r.data.partial_errors['../x'].code, 41304);
  t.is(typeof r.data.partial_errors['../x'].msg, 'string');
  t.false('children_by_path' in r.data);
  const deep = await f.fs('list_many', { paths: ['src'], depth: 2 });
  t.deepEqual(names(deep.data.children_by_path['src/deep']), ['nested']);
  t.is((await f.fs('list_many', { paths: [] })).code, 40001);
  t.is((await f.fs('list_many', { paths: Array.from({ length: 101 }, (_, i) => `d${i}`) })).code, 40001);
  t.is((await f.fs('list_many', { paths: ['src'], path: 'ignored-extra' })).code, 0);
  t.is((await f.fs('list_many', { paths: ['src'], runtime_id: 'x' })).code, 40420);
});

test('list gitignore rules: negation, anchored and nested paths, .git/info/exclude, inside an ignored directory', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  await writeFile(path.join(f.ws, '.gitignore'), '*.log\nbuild/\n!keep.log\n/anchored.txt\nsrc/deep/nested/\n');
  await writeFile(path.join(f.ws, '.git', 'info', 'exclude'), 'by-info.txt\n');
  for (const rel of ['keep.log', 'anchored.txt', 'src/anchored.txt', 'by-info.txt']) await writeFile(path.join(f.ws, rel), 'x');
  const top = names((await f.fs('list')).data.items);
  t.true(top.includes('keep.log'));
  t.false(top.includes('debug.log'));
  t.false(top.includes('anchored.txt'));
  t.false(top.includes('by-info.txt'));
  t.true(names((await f.fs('list', { path: 'src' })).data.items).includes('anchored.txt'), 'a leading / anchors to the .gitignore directory');
  t.deepEqual((await f.fs('list', { path: 'src/deep' })).data.items, []);
  t.deepEqual((await f.fs('list', { path: 'build' })).data.items, [], 'everything inside an ignored directory is ignored');
  t.deepEqual(names((await f.fs('list', { path: 'build', follow_gitignore: false })).data.items), ['out.js']);
});

test('list an additional directory of the workspace by its absolute path', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const extra = await tempDir('svc-code-extra-');
  t.teardown(() => rm(extra, { recursive: true, force: true }));
  await mkdir(path.join(extra, 'sub'));
  await writeFile(path.join(extra, 'sub', 'x.py'), 'print(1)\n');
  const session = await f.s.get(`/api/v1/sessions/${f.sessionId}`);
  const added = await f.s.post(`/api/v1/workspaces/${session.data.workspace_id}/add-dir`, { path: extra, persist: false });
  t.is(added.code, 0, JSON.stringify(added));
  const r = await f.fs('list', { path: extra, depth: 2 });
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data.items.map((e: any) => e.path), [path.join(extra, 'sub')]);
  t.like(r.data.children_by_path[path.join(extra, 'sub')][0], { path: path.join(extra, 'sub', 'x.py'), language_id: 'python' });
});
