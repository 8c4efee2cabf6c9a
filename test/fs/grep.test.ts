import test, { type ExecutionContext } from 'ava';
import { scratchDir, writeFiles } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';

const FILES: Record<string, string | Buffer> = {
  'a.txt': 'alpha\nFoo one\nbeta\nfoo two foo\ngamma\n',
  'b.md': 'foo.bar\nfooXbar\n',
  'sub/c.txt': 'nothing here\n',
  'u.txt': 'héllo foo\n',
  'latin1.txt': Buffer.from('caf\xe9 foo\n', 'latin1'),
  'ignored/x.txt': 'foo ignored\n',
  '.gitignore': 'ignored/\n',
};
for (let i = 0; i < 10; i++) FILES[`many/f${i}.txt`] = 'needle 1\nhay\nneedle 2\nneedle 3\n';

async function setup(t: ExecutionContext) {
  const s = await serverFor(t);
  const root = await scratchDir(t, 'svc-code-grep-');
  await writeFiles(root, FILES);
  const created = await s.post('/api/v1/sessions', { metadata: { cwd: root } });
  const grep = (body: object) => s.post(`/api/v1/sessions/${created.data.id}/fs:grep`, body);
  return { s, root, grep };
}

const filePaths = (r: any): string[] => r.data.files.map((f: any) => f.path);
const total = (r: any): number => r.data.files.reduce((n: number, f: any) => n + f.matches.length, 0);

test('literal by default, regex on request; the data shape', async (t) => {
  const { grep } = await setup(t);
  const lit = await grep({ pattern: 'foo.bar' });
  t.is(lit.code, 0, JSON.stringify(lit));
  t.deepEqual(Object.keys(lit.data).sort(), ['elapsed_ms', 'files', 'files_scanned', 'truncated']);
  t.deepEqual(lit.data.files, [{ path: 'b.md', matches: [{ line: 1, col: 1, text: 'foo.bar', before: [], after: ['fooXbar'] }] }]);
  t.false(lit.data.truncated);
  t.true(lit.data.elapsed_ms >= 0);
  const re = await grep({ pattern: 'foo.bar', regex: true, context_lines: 0 });
  t.deepEqual(re.data.files[0].matches.map((m: any) => m.text), ['foo.bar', 'fooXbar']);
  t.is((await grep({ pattern: '(' })).code, 0, 'a literal parenthesis is no regex');
});

test('case sensitivity', async (t) => {
  const { grep } = await setup(t);
  const cs = await grep({ pattern: 'Foo', include_globs: ['a.txt'] });
  t.deepEqual(cs.data.files[0].matches.map((m: any) => m.line), [2]);
  const ci = await grep({ pattern: 'Foo', include_globs: ['a.txt'], case_sensitive: false });
  t.deepEqual(ci.data.files[0].matches.map((m: any) => m.line), [2, 4]);
});

test('context lines, columns in characters, non-UTF-8 lines', async (t) => {
  const { grep } = await setup(t);
  const one = await grep({ pattern: 'beta', context_lines: 1 });
  t.deepEqual(one.data.files[0].matches[0], { line: 3, col: 1, text: 'beta', before: ['Foo one'], after: ['foo two foo'] });
  const def = await grep({ pattern: 'beta' });
  t.deepEqual(def.data.files[0].matches[0].before, ['alpha', 'Foo one'], 'default 2 lines');
  t.deepEqual(def.data.files[0].matches[0].after, ['foo two foo', 'gamma']);
  const none = await grep({ pattern: 'beta', context_lines: 0 });
  t.deepEqual(none.data.files[0].matches[0].before, []);
  const col = await grep({ pattern: 'two' });
  t.is(col.data.files[0].matches[0].col, 5);
  const uni = await grep({ pattern: 'foo', include_globs: ['u.txt'] });
  t.is(uni.data.files[0].matches[0].col, 7, 'é is one column');
  const latin = await grep({ pattern: 'foo', include_globs: ['latin1.txt'] });
  t.deepEqual(latin.data.files[0].matches[0], { line: 1, col: 6, text: 'caf\uFFFD foo', before: [], after: [] });
});

test('max_files stops the search', async (t) => {
  const { grep } = await setup(t);
  const three = await grep({ pattern: 'needle', max_files: 3 });
  t.is(three.data.files.length, 3);
  t.true(three.data.truncated);
  const all = await grep({ pattern: 'needle', max_files: 10 });
  t.is(all.data.files.length, 10);
  t.false(all.data.truncated);
  t.deepEqual(filePaths(all), [...filePaths(all)].sort(), 'files by path');
});

test('max_matches_per_file and max_total_matches', async (t) => {
  const { grep } = await setup(t);
  const two = await grep({ pattern: 'needle', max_matches_per_file: 2 });
  t.true(two.data.files.every((f: any) => f.matches.length === 2));
  t.is(two.data.files.length, 10);
  t.true(two.data.truncated);
  const three = await grep({ pattern: 'needle', max_matches_per_file: 3 });
  t.true(three.data.files.every((f: any) => f.matches.length === 3));
  t.false(three.data.truncated);
  const capped = await grep({ pattern: 'needle', max_total_matches: 5 });
  t.is(total(capped), 5);
  t.true(capped.data.truncated);
  const exact = await grep({ pattern: 'needle', max_total_matches: 30 });
  t.is(total(exact), 30);
  t.false(exact.data.truncated);
});

test('globs and gitignore', async (t) => {
  const { grep } = await setup(t);
  t.deepEqual(filePaths(await grep({ pattern: 'foo', include_globs: ['*.md'] })), ['b.md']);
  const noTxt = await grep({ pattern: 'foo', exclude_globs: ['*.txt'] });
  t.deepEqual(filePaths(noTxt), ['b.md']);
  const dflt = await grep({ pattern: 'foo' });
  t.false(filePaths(dflt).includes('ignored/x.txt'));
  const noIgnore = await grep({ pattern: 'foo', follow_gitignore: false });
  t.true(filePaths(noIgnore).includes('ignored/x.txt'));
});

test('files_scanned counts the files searched', async (t) => {
  const { grep } = await setup(t);
  const none = await grep({ pattern: 'zzz-not-there' });
  t.deepEqual(none.data.files, []);
  // Every file but the ignored one: .gitignore, a.txt, b.md, sub/c.txt, u.txt, latin1.txt and many/f0-f9.
  t.is(none.data.files_scanned, 16);
});

test('invalid regex and invalid glob are 40001 with details', async (t) => {
  const { grep } = await setup(t);
  const bad = await grep({ pattern: '(unclosed', regex: true });
  t.is(bad.code, 40001);
  t.is(bad.details[0].field, 'pattern');
  t.regex(bad.details[0].message, /unclosed group/);
  const glob = await grep({ pattern: 'x', exclude_globs: ['{a'] });
  t.is(glob.code, 40001);
  t.is(glob.details[0].field, 'exclude_globs');
});

test('body validation, unknown session and runtime', async (t) => {
  const { s, grep } = await setup(t);
  const cases: [object, string][] = [
    [{}, 'pattern'], [{ pattern: '' }, 'pattern'], [{ pattern: 'x', max_files: 0 }, 'max_files'], [{ pattern: 'x', max_files: 10_001 }, 'max_files'],
    [{ pattern: 'x', max_matches_per_file: 10_001 }, 'max_matches_per_file'], [{ pattern: 'x', max_total_matches: 100_001 }, 'max_total_matches'],
    [{ pattern: 'x', context_lines: 11 }, 'context_lines'], [{ pattern: 'x', regex: 'yes' }, 'regex'],
  ];
  for (const [body, field] of cases) {
    const r = await grep(body);
    t.is(r.code, 40001, JSON.stringify(body));
    t.is(r.details[0].field, field);
  }
  t.is((await grep({ pattern: 'x', max_total_matches: 100_000, max_files: 10_000, context_lines: 10 })).code, 0, 'upper bounds accepted');
  t.is((await s.post('/api/v1/sessions/session_nope/fs:grep', { pattern: 'x' })).code, 40401);
  t.is((await grep({ pattern: 'x', runtime_id: 'other' })).code, 40420);
});
