import test, { type ExecutionContext } from 'ava';
import { unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, scratchDir, writeFiles } from '../helpers/fs.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

/**
 * A clone-like repo whose `main` tracks a bare origin and is one commit ahead,
 * with a modified, a staged, a deleted, a renamed, an untracked and an ignored
 * file, plus a modified file in `sub/`.
 */
async function repo(t: ExecutionContext): Promise<string> {
  const origin = await scratchDir(t, 'svc-code-origin-');
  const root = await scratchDir(t, 'svc-code-git-');
  git(origin, 'init', '-q', '--bare');
  git(root, 'init', '-q', '-b', 'main');
  const files: Record<string, string> = {
    'keep.txt': 'keep\n', 'mod.txt': 'a\nb\nc\n', 'staged.txt': 'x\n', 'del.txt': 'one\ntwo\n', 'old.txt': 'renamed content\n',
    '.gitignore': '*.log\n', 'sub/inner.txt': 'inner\n',
  };
  await writeFiles(root, files);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'first');
  git(root, 'remote', 'add', 'origin', origin);
  git(root, 'push', '-q', '-u', 'origin', 'main');
  await writeFile(path.join(root, 'keep.txt'), 'keep\nmore\n');
  git(root, 'commit', '-q', '-am', 'local only');
  await writeFile(path.join(root, 'mod.txt'), 'a\nB\nc\nd\n');
  await writeFile(path.join(root, 'staged.txt'), 'x\ny\n');
  git(root, 'add', 'staged.txt');
  await unlink(path.join(root, 'del.txt'));
  git(root, 'mv', 'old.txt', 'new.txt');
  await writeFile(path.join(root, 'untracked.txt'), 'u1\nu2');
  await writeFile(path.join(root, 'debug.log'), 'ignored\n');
  await writeFile(path.join(root, 'sub/inner.txt'), 'inner\nchanged\n');
  return root;
}

async function session(t: ExecutionContext, s: TestServer, cwd: string) {
  const created = await s.post('/api/v1/sessions', { metadata: { cwd } });
  t.is(created.code, 0);
  return (action: string, body: object) => s.post(`/api/v1/sessions/${created.data.id}/fs:${action}`, body);
}

test('git_status: branch, upstream distance, entries and line totals', async (t) => {
  const s = await serverFor(t);
  const fs = await session(t, s, await repo(t));
  const r = await fs('git_status', {});
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data, {
    branch: 'main',
    ahead: 1,
    behind: 0,
    entries: {
      'mod.txt': 'modified', 'staged.txt': 'modified', 'del.txt': 'deleted', 'new.txt': 'renamed',
      'untracked.txt': 'untracked', 'debug.log': 'ignored', 'sub/inner.txt': 'modified',
    },
    // mod +2 -1, staged +1, del -2, sub/inner +1, untracked.txt 2 lines (the last without a newline).
    additions: 6,
    deletions: 3,
    pullRequest: null,
  });
});

test('git_status: paths restrict the entries; a subdirectory root reports relative paths', async (t) => {
  const s = await serverFor(t);
  const root = await repo(t);
  const fs = await session(t, s, root);
  const only = await fs('git_status', { paths: ['mod.txt', 'sub'] });
  t.deepEqual(only.data.entries, { 'mod.txt': 'modified', 'sub/inner.txt': 'modified' });
  t.is(only.data.additions, 3);
  t.is(only.data.deletions, 1);
  t.is((await fs('git_status', { paths: ['../elsewhere'] })).code, 41304);

  const inSub = await session(t, s, path.join(root, 'sub'));
  const r = await inSub('git_status', {});
  t.deepEqual(r.data.entries, { 'inner.txt': 'modified' });
  t.is(r.data.branch, 'main');
});

test('git_status: behind and a repository without commits', async (t) => {
  const s = await serverFor(t);
  const root = await repo(t);
  git(root, 'fetch', '-q', 'origin');
  // Move origin/main ahead by a commit the local branch does not have.
  const tree = git(root, 'rev-parse', 'origin/main^{tree}').trim();
  const extra = git(root, 'commit-tree', tree, '-p', 'origin/main', '-m', 'remote work').trim();
  git(root, 'update-ref', 'refs/remotes/origin/main', extra);
  const r = await (await session(t, s, root))('git_status', {});
  t.is(r.data.ahead, 1);
  t.is(r.data.behind, 1);

  const fresh = await scratchDir(t, 'svc-code-fresh-');
  git(fresh, 'init', '-q', '-b', 'trunk');
  await writeFile(path.join(fresh, 'a.txt'), '1\n2\n');
  git(fresh, 'add', 'a.txt');
  const f = await (await session(t, s, fresh))('git_status', {});
  t.deepEqual(f.data, { branch: 'trunk', ahead: 0, behind: 0, entries: { 'a.txt': 'added' }, additions: 2, deletions: 0, pullRequest: null });
});

test('git_status and diff outside a repository are 40908', async (t) => {
  const s = await serverFor(t);
  const plain = await scratchDir(t, 'svc-code-plain-');
  await writeFile(path.join(plain, 'a.txt'), 'a\n');
  const fs = await session(t, s, plain);
  const st = await fs('git_status', {});
  t.is(st.code, 40908);
  t.is(st.details.reason, 'not_a_repository');
  t.is((await fs('diff', { path: 'a.txt' })).code, 40908);
  t.is((await fs('git_status', { runtime_id: 'nope' })).code, 40420);
});

test('diff: modified, staged, untracked, unchanged', async (t) => {
  const s = await serverFor(t);
  const fs = await session(t, s, await repo(t));
  const mod = await fs('diff', { path: 'mod.txt' });
  t.is(mod.code, 0);
  t.is(mod.data.path, 'mod.txt');
  t.false(mod.data.truncated);
  t.regex(mod.data.diff, /^diff --git a\/mod\.txt b\/mod\.txt$/m);
  t.regex(mod.data.diff, /^--- a\/mod\.txt\n\+\+\+ b\/mod\.txt\n@@ .* @@\n a\n-b\n\+B\n c\n\+d\n$/m);
  t.regex((await fs('diff', { path: 'staged.txt' })).data.diff, /^\+y$/m, 'staged changes count');
  const un = await fs('diff', { path: 'untracked.txt' });
  t.regex(un.data.diff, /^--- \/dev\/null\n\+\+\+ b\/untracked\.txt\n@@ -0,0 \+1,2 @@\n\+u1\n\+u2\n\\ No newline at end of file\n$/m);
  t.deepEqual((await fs('diff', { path: 'keep.txt' })).data, { path: 'keep.txt', diff: '', truncated: false });
  const dirDiff = await fs('diff', { path: 'sub' });
  t.regex(dirDiff.data.diff, /\+changed/);
});

test('diff: confinement and the size cap', async (t) => {
  const s = await serverFor(t);
  const root = await repo(t);
  const fs = await session(t, s, root);
  t.is((await fs('diff', { path: '../../etc/passwd' })).code, 41304);
  t.is((await fs('diff', { path: '/etc/passwd' })).code, 41304);
  t.is((await fs('diff', {})).code, 40001);
  await writeFile(path.join(root, 'huge.txt'), `${'x'.repeat(99)}\n`.repeat(15_000));
  const big = await fs('diff', { path: 'huge.txt' });
  t.true(big.data.truncated);
  t.true(Buffer.byteLength(big.data.diff) <= 2 ** 20);
  t.true(big.data.diff.endsWith('\n'), 'cut at a line end');
});

test('git_status: a merge conflict is conflicted; a detached HEAD has branch null', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t, 'svc-code-conflict-');
  git(root, 'init', '-q', '-b', 'main');
  await writeFile(path.join(root, 'f.txt'), 'base\n');
  git(root, 'add', 'f.txt');
  git(root, 'commit', '-q', '-m', 'base');
  git(root, 'checkout', '-q', '-b', 'side');
  await writeFile(path.join(root, 'f.txt'), 'side\n');
  git(root, 'commit', '-q', '-am', 'side');
  git(root, 'checkout', '-q', 'main');
  await writeFile(path.join(root, 'f.txt'), 'main\n');
  git(root, 'commit', '-q', '-am', 'main');
  t.throws(() => git(root, 'merge', '-q', 'side'), undefined, 'the merge stops on the conflict');
  const fs = await session(t, s, root);
  const r = await fs('git_status', {});
  t.is(r.data.branch, 'main');
  t.deepEqual(r.data.entries, { 'f.txt': 'conflicted' });

  git(root, 'merge', '--abort');
  git(root, 'checkout', '-q', '--detach', 'HEAD');
  const detached = await fs('git_status', {});
  t.is(detached.data.branch, null);
  t.deepEqual(detached.data.entries, {});
});
