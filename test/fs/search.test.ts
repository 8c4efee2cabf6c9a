import test, { type ExecutionContext } from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scratchDir, writeFiles } from '../helpers/fs.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

/**
 * src/fs/confine.ts, src/fs/search.ts, src/http/routes/index.ts,
 * src/searchBox.tsx, docs/readme.md, README.md, notes.md, notes/a.txt,
 * .github/ci.yml, .gitignore (build/, *.log), build/out.js, debug.log.
 */
const FILES = [
  'src/fs/confine.ts', 'src/fs/search.ts', 'src/http/routes/index.ts', 'src/searchBox.tsx', 'docs/readme.md',
  'README.md', 'notes.md', 'notes/a.txt', '.github/ci.yml', 'build/out.js', 'debug.log',
];

async function workspace(t: ExecutionContext): Promise<string> {
  const root = await scratchDir(t, 'svc-code-search-');
  await writeFiles(root, Object.fromEntries(FILES.map((f) => [f, `${f}\n`])));
  await writeFile(path.join(root, '.gitignore'), 'build/\n*.log\n');
  return root;
}

async function setup(t: ExecutionContext): Promise<{ s: TestServer; root: string; search: (body: object) => Promise<any> }> {
  const s = await serverFor(t);
  const root = await workspace(t);
  const created = await s.post('/api/v1/sessions', { metadata: { cwd: root } });
  t.is(created.code, 0);
  const url = `/api/v1/sessions/${created.data.id}/fs:search`;
  return { s, root, search: (body) => s.post(url, body) };
}

const paths = (r: any): string[] => r.data.items.map((i: any) => i.path);

/** Every hit: positions point at the query's characters, in order; items sorted by score desc then path asc. */
function assertWellFormed(t: ExecutionContext, r: any, query: string): void {
  t.is(r.code, 0, JSON.stringify(r));
  const q = query.replace(/\s+/g, '').toLowerCase();
  const items = r.data.items;
  for (const it of items) {
    t.deepEqual(Object.keys(it).sort(), ['kind', 'match_positions', 'name', 'path', 'score']);
    t.true(it.score >= 0 && it.score <= 1);
    t.is(it.name, it.path.split('/').pop());
    t.is(it.match_positions.map((p: number) => it.path[p].toLowerCase()).join(''), q);
    t.deepEqual([...it.match_positions].sort((a: number, b: number) => a - b), it.match_positions);
  }
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1], items[i]];
    t.true(a.score > b.score || (a.score === b.score && a.path < b.path), `${a.path} before ${b.path}`);
  }
}

test('ranking: basename matches first, match_positions index into path', async (t) => {
  const { search } = await setup(t);
  const r = await search({ query: 'search' });
  assertWellFormed(t, r, 'search');
  t.is(r.data.items[0].path, 'src/fs/search.ts');
  t.deepEqual(r.data.items[0].match_positions, [7, 8, 9, 10, 11, 12]);
  t.is(r.data.items[0].kind, 'file');
  t.is(r.data.items[0].name, 'search.ts');
  t.is(paths(r)[1], 'src/searchBox.tsx', 'a longer basename ranks below');
  t.false(r.data.truncated);

  const acronym = await search({ query: 'sfc' });
  assertWellFormed(t, acronym, 'sfc');
  t.is(acronym.data.items[0].path, 'src/fs/confine.ts');
  t.deepEqual(acronym.data.items[0].match_positions, [0, 4, 7], 'segment starts preferred');

  const exact = await search({ query: 'confine.ts' });
  t.is(exact.data.items[0].score, 1, 'an exact basename match scores 1');
});

test('directories match too, with kind directory', async (t) => {
  const { search } = await setup(t);
  const r = await search({ query: 'routes' });
  assertWellFormed(t, r, 'routes');
  t.deepEqual(r.data.items[0], { path: 'src/http/routes', name: 'routes', kind: 'directory', score: 1, match_positions: [9, 10, 11, 12, 13, 14] });
});

test('empty query lists the top level; hidden entries included, ignored ones not', async (t) => {
  const { search } = await setup(t);
  const r = await search({ query: '' });
  assertWellFormed(t, r, '');
  t.deepEqual(paths(r), ['.github', '.gitignore', 'README.md', 'docs', 'notes', 'notes.md', 'src']);
  t.true(r.data.items.every((i: any) => i.score === 1 && i.match_positions.length === 0));
});

test('follow_gitignore: ignored files only when false', async (t) => {
  const { search } = await setup(t);
  t.false(paths(await search({ query: 'out.js' })).includes('build/out.js'));
  t.false(paths(await search({ query: 'debug' })).includes('debug.log'));
  const all = await search({ query: 'out.js', follow_gitignore: false });
  assertWellFormed(t, all, 'out.js');
  t.is(paths(all)[0], 'build/out.js');
  t.true(paths(await search({ query: 'debug', follow_gitignore: false })).includes('debug.log'));
});

test('include_globs and exclude_globs', async (t) => {
  const { search } = await setup(t);
  const md = await search({ query: 'r', include_globs: ['*.md'] });
  assertWellFormed(t, md, 'r');
  t.deepEqual(paths(md).sort(), ['README.md', 'docs/readme.md']);
  const noSrc = await search({ query: 's', exclude_globs: ['src'] });
  t.true(paths(noSrc).length > 0);
  t.true(paths(noSrc).every((p) => !p.startsWith('src')), 'a directory glob drops its contents');
  const anchored = await search({ query: 'ts', include_globs: ['src/fs/**'] });
  t.deepEqual(paths(anchored).sort(), ['src/fs/confine.ts', 'src/fs/search.ts']);
  t.deepEqual(paths(await search({ query: 's', include_globs: ['fs'] })), ['src/fs'], 'as with ripgrep, a bare directory name includes nothing under it');
  t.deepEqual(paths(await search({ query: 'conf', exclude_globs: ['src/fs/*.ts'] })), [], 'a glob with / matches from the root');
});

test('limit and truncated', async (t) => {
  const { search } = await setup(t);
  const one = await search({ query: 's', limit: 1 });
  t.is(one.data.items.length, 1);
  t.true(one.data.truncated);
  const all = await search({ query: 's', limit: 200 });
  t.false(all.data.truncated);
  t.is(all.data.items[0].path, one.data.items[0].path, 'limit keeps the best');
  for (const limit of [0, 201, 1.5]) {
    const bad = await search({ query: 's', limit });
    t.is(bad.code, 40001);
    t.is(bad.details?.[0]?.field, 'limit');
  }
  const missing = await search({});
  t.is(missing.code, 40001);
  t.is(missing.details?.[0]?.field, 'query');
});

test('runtime_id: local is the default, others are 40420', async (t) => {
  const { search } = await setup(t);
  t.is((await search({ query: 'a', runtime_id: 'local' })).code, 0);
  t.is((await search({ query: 'a', runtime_id: 'remote-1' })).code, 40420);
});

test('the session slot takes a workspace id or an absolute root (draft session)', async (t) => {
  const s = await serverFor(t);
  const root = await workspace(t);
  const w = await s.post('/api/v1/workspaces', { root });
  const byId = await s.post(`/api/v1/sessions/${w.data.id}/fs:search`, { query: 'confine' });
  assertWellFormed(t, byId, 'confine');
  t.is(byId.data.items[0].path, 'src/fs/confine.ts');
  const byRoot = await s.post(`/api/v1/sessions/${encodeURIComponent(root)}/fs:search`, { query: 'confine' });
  t.deepEqual(byRoot.data, byId.data);
  const unregistered = await workspace(t);
  const draft = await s.post(`/api/v1/sessions/${encodeURIComponent(unregistered)}/fs:search`, { query: 'notes.md' });
  t.is(draft.data.items[0].path, 'notes.md');
  t.is((await s.get('/api/v1/workspaces')).data.items.length, 1, 'searching a draft root does not register it');
  for (const ref of ['session_nope', encodeURIComponent(path.join(root, 'missing-dir'))]) {
    const r = await s.post(`/api/v1/sessions/${ref}/fs:search`, { query: 'x' });
    t.is(r.code, 40401, ref);
  }
});

test('workspace fs:search registers a new absolute root on the spot', async (t) => {
  const s = await serverFor(t);
  const root = await workspace(t);
  const r = await s.post('/api/v1/workspace/fs:search', { workspace: root, query: 'index' });
  assertWellFormed(t, r, 'index');
  t.is(r.data.items[0].path, 'src/http/routes/index.ts');
  const list = await s.get('/api/v1/workspaces');
  t.deepEqual(list.data.items.map((w: any) => w.root), [root]);
  const byId = await s.post('/api/v1/workspace/fs:search', { workspace: list.data.items[0].id, query: 'index', limit: 1 });
  t.deepEqual(byId.data.items, r.data.items.slice(0, 1));
  t.is((await s.get('/api/v1/workspaces')).data.items.length, 1, 'idempotent');

  t.is((await s.post('/api/v1/workspace/fs:search', { workspace: 'wd_unknown_000000000000', query: 'x' })).code, 40410);
  const missing = await s.post('/api/v1/workspace/fs:search', { workspace: path.join(root, 'nope'), query: 'x' });
  t.is(missing.code, 40410);
  t.is(missing.details.reason, 'directory_missing');
  t.is((await s.post('/api/v1/workspace/fs:search', { query: 'x' })).code, 40001);
  t.is((await s.post('/api/v1/workspace/fs:search', { workspace: root })).code, 40001);
});

test('fs:suggest: files before directories, basename and path prefixes, hidden on request', async (t) => {
  const s = await serverFor(t);
  const root = await workspace(t);
  const suggest = (body: object) => s.post('/api/v1/workspace/fs:suggest', { workspace: root, ...body });
  const search = (body: object) => s.post('/api/v1/workspace/fs:search', { workspace: root, ...body });

  t.is(paths(await search({ query: 'notes' }))[0], 'notes', 'search: the exact directory name wins');
  const notes = await suggest({ query: 'notes' });
  assertWellFormed(t, notes, 'notes');
  t.is(paths(notes)[0], 'notes.md', 'suggest: the file wins');

  const typed = await suggest({ query: 'src/fs/' });
  assertWellFormed(t, typed, 'src/fs/');
  t.deepEqual(paths(typed).slice(0, 2), ['src/fs/search.ts', 'src/fs/confine.ts'], 'path prefix first, shorter path first');
  t.deepEqual(typed.data.items[0].match_positions, [0, 1, 2, 3, 4, 5, 6]);

  t.false(paths(await suggest({ query: 'ci.yml' })).includes('.github/ci.yml'));
  t.is(paths(await suggest({ query: 'ci.yml', show_hidden: true }))[0], '.github/ci.yml');
  t.true(paths(await search({ query: 'ci.yml' })).includes('.github/ci.yml'), 'search includes hidden files');

  const top = await suggest({ query: '' });
  t.deepEqual(paths(top), ['README.md', 'notes.md', 'docs', 'notes', 'src'], 'top level, files first, no hidden');
  t.is((await suggest({ query: 'x', limit: 300 })).code, 40001);
  t.is((await s.post('/api/v1/workspace/fs:suggest', { workspace: 'relative/dir', query: 'x' })).code, 40410);
});
