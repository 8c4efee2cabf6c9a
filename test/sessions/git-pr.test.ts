import test from 'ava';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../helpers/fs.ts';
import { newSession, serverFor } from '../helpers/server.ts';

/**
 * The GitHub CLI cannot reach GitHub here: a stand-in `gh` on PATH answers `gh pr view --json ...` the way
 * the real one does for a repository whose branch has a draft PR, fails as it does for one without, and
 * counts its calls (the cache).
 */
async function fakeGh(dir: string): Promise<string> {
  const bin = path.join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const script = `#!/bin/sh
echo call >> "${path.join(dir, 'calls')}"
[ "$1 $2" = "pr view" ] || exit 2
case "$PWD" in
  *withpr*) echo '{"isDraft":true,"number":42,"state":"OPEN","url":"https://github.com/o/r/pull/42"}' ;;
  *) echo 'no pull requests found for branch "feature"' >&2; exit 1 ;;
esac
`;
  await writeFile(path.join(bin, 'gh'), script);
  await chmod(path.join(bin, 'gh'), 0o755);
  return bin;
}

async function repo(name: string): Promise<string> {
  const dir = path.join(await tempDir(), name);
  await mkdir(dir);
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '-q', '-b', 'feature');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
  return dir;
}

test.serial('include=git: the branch\'s pull request from gh when it answers (cached), null when it has none', async (t) => {
  const scratch = await tempDir();
  const bin = await fakeGh(scratch);
  const oldPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${oldPath}`;
  t.teardown(() => { process.env.PATH = oldPath; });
  const s = await serverFor(t);
  const withPr = await newSession(s, { metadata: { cwd: await repo('withpr') } });
  const without = await newSession(s, { metadata: { cwd: await repo('nopr') } });
  const r = await s.get('/api/v2/sessions?include=git');
  t.is(r.code, 0);
  const byId = new Map(r.data.items.map((i: any) => [i.id, i.git]));
  t.deepEqual((byId.get(withPr) as any).pull_request, { number: 42, state: 'draft', url: 'https://github.com/o/r/pull/42' });
  t.is((byId.get(without) as any).branch, 'feature');
  t.is((byId.get(without) as any).pull_request, null);
  const calls = (await readFile(path.join(scratch, 'calls'), 'utf8')).trim().split('\n').length;
  t.is((await s.get('/api/v2/sessions?include=git')).code, 0);
  t.is((await readFile(path.join(scratch, 'calls'), 'utf8')).trim().split('\n').length, calls, 'a second list within 60 s asks gh nothing');
});
