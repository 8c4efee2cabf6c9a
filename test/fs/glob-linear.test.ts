import test from 'ava';
import picomatch from 'picomatch';
import { compileGlob, wildcardMatch } from '../../src/lib/glob.ts';
import { commandMatches, parsePattern } from '../../src/permissions/rules.ts';

const GLOBS = ['*.ts', 'src/**', 'src/**/*.ts', '**/*.ts', '**', 'src', 'src/fs/*.ts', 'a?c', '[ab]*', '[^a]*', 'file[0-9].txt', '{a,b}.txt',
  'src/{fs,http}/**', '*', '*/*', '**/b', 'a/**/b', 'a/**', '.git', '.*', '*.{js,ts}', 'x\\*y', '!*.md', 'node_modules', '**/node_modules/**', 'a*b*c', '{a', '[a', 'a/*/c'];
const PATHS = ['a.ts', 'src/a.ts', 'src/fs/a.ts', 'src', 'src/fs', 'src/fs/b.js', 'abc', 'ac', 'a', 'b', 'file1.txt', 'filex.txt', 'a.txt', 'c.txt',
  'src/http/x/y', 'a/b', 'a/x/b', 'a/x/y/b', 'x/b', '.git', '.env', 'x.js', 'x*y', 'xay', 'README.md', 'node_modules/x', 'q/node_modules/x/y',
  'node_modules', 'axbyc', '{a', '[a', 'a/b/c', 'aab', 'a/./b'];

test('the linear glob matcher agrees with picomatch (dot: true) on the globs clients write', (t) => {
  for (const g of GLOBS) {
    for (const basename of g.includes('/') ? [false] : [false, true]) {
      const ours = compileGlob(g, { basename });
      const theirs = picomatch(g, { dot: true, basename });
      for (const p of PATHS) t.is(ours(p), theirs(p), `${g} ${basename ? '(basename) ' : ''}${p}`);
    }
  }
  // Like ripgrep and the shell (picomatch reads `[!a]` as the class of `!` and `a`).
  t.false(compileGlob('[!a]*')('abc'));
  t.true(compileGlob('[!a]*')('bcd'));
});

test('globs that make backtracking matchers run for hours are matched in linear time', (t) => {
  const name = 'a'.repeat(255);
  const deep = Array.from({ length: 2000 }, () => 'a').join('/');
  // picomatch takes seconds on the first two at a quarter of these sizes, and hours here.
  t.false(compileGlob(`${'*a'.repeat(400)}*b`)(name));
  t.false(compileGlob('**/a/**/a/**/a/**/a/**/b')(deep));
  t.false(compileGlob('**/*a*a*a*/**/b', { basename: false })(Array.from({ length: 15 }, () => name).join('/')));
  t.false(wildcardMatch(`${'*a'.repeat(400)}*b`, 'a'.repeat(100_000)));
  t.false(commandMatches(`${'*a'.repeat(400)}*b`, 'a'.repeat(100_000)));
  t.true(commandMatches('npm run *', 'npm run test'));
  // A rule pattern of spaces: two `\s*` around an optional group were quadratic (100,000 spaces: seconds).
  t.is(parsePattern(`A${' '.repeat(100_000)}x`), undefined);
  t.deepEqual(parsePattern(' Bash(npm run *) '), { tool: 'Bash', arg: 'npm run *' });
  t.true(wildcardMatch('*a*b', 'xaxxbx'.slice(0, 5)));
});
