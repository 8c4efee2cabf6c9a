import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../helpers/built.ts';

// Every child process the daemon starts gets its environment from src/lib/child-env.ts `childEnv` (the daemon's
// environment without its token and journal URL). A file that starts children must build their environment there,
// or be listed here with the reason its children's environment is already clean.
const ALLOWED: Record<string, string> = {
  'src/terminals/terminal.ts': 'the PTY gets spec.env, built by shellEnv (src/terminals/shell.ts) from childEnv',
  'src/fs/launch.ts': 'launched programs get the env sessionFsRoutes passes: childEnv() (src/http/routes/session-fs.ts)',
};

const STARTS_CHILDREN = /^import\s+(?!type\b)[^;]*from\s+'(node:child_process|node-pty)'/m;

async function starters(): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ['src', 'projections', 'journal']) {
    for (const d of await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
      if (!d.isFile() || !d.name.endsWith('.ts')) continue;
      const file = path.relative(ROOT, path.join(d.parentPath, d.name)).split(path.sep).join('/');
      if (file.startsWith('src/cli/')) continue;
      if (STARTS_CHILDREN.test(await readFile(path.join(ROOT, file), 'utf8'))) found.push(file);
    }
  }
  return found.sort();
}

test('every file that starts a child process builds its environment with childEnv', async (t) => {
  const files = await starters();
  t.true(files.length >= 10, `found ${files.length} files that start children: the scan works`);
  const without: string[] = [];
  for (const file of files) {
    if (file in ALLOWED) continue;
    if (!/\bchildEnv\(/.test(await readFile(path.join(ROOT, file), 'utf8'))) without.push(file);
  }
  t.deepEqual(without, [], 'pass env: childEnv(...) to spawn/execFile/fork (src/lib/child-env.ts)');
  t.deepEqual(Object.keys(ALLOWED).filter((f) => !files.includes(f)), [], 'an allowed file that no longer starts children leaves the list');
});
