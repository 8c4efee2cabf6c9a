import test from 'ava';
import { existsSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildScript, daemonEnv, launch, ROOT } from '../helpers/built.ts';
import { tempDir } from '../helpers/fs.ts';

// `npm start` in a copy of this package: it builds dist/ only when the sources differ from what
// dist/ was built from, and never starts a stale build. The copy links every installed package of
// this checkout except TypeScript, which it swaps: the real one, or a stand-in whose tsc only
// leaves a mark, to prove a start compiled nothing.

/** The folders the build compiles (tsconfig.build.json `include`), so a new top-level folder is copied too. */
const COMPILED: string[] = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')).include;
const COPIED = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'bin', 'skills', 'web', ...COMPILED, 'dist'];
const TS = 'node_modules/typescript';
const BUILDING = 'building dist/ first';
/** A full TypeScript build on a busy 2-core machine takes up to about 25 s. */
const BUILD_MS = 240_000;

let pkg: string;

test.before(async () => {
  pkg = await mkdtemp(path.join(os.tmpdir(), 'svc-code-pkg-'));
  for (const entry of COPIED) await cp(path.join(ROOT, entry), path.join(pkg, entry), { recursive: true, preserveTimestamps: true });
  await mkdir(path.join(pkg, 'node_modules'));
  for (const name of await readdir(path.join(ROOT, 'node_modules'))) {
    const from = path.join(ROOT, 'node_modules', name);
    const to = path.join(pkg, 'node_modules', name);
    // .bin holds relative links (../typescript/bin/tsc): copied as links, they reach the copy's TypeScript.
    if (name === '.bin') await cp(from, to, { recursive: true, verbatimSymlinks: true });
    else if (name !== 'typescript') await symlink(from, to, 'dir');
  }
  await useTypescript('real');
  // The copy starts current whatever state this checkout's dist/ is in (npm test builds it first; a lone run may not).
  const r = buildScript('--if-stale', pkg);
  if (r.status !== 0) throw new Error(`building the copy failed: ${r.stderr}`);
});

test.after.always(() => rm(pkg, { recursive: true, force: true }));

const tscMark = () => path.join(pkg, 'tsc-ran');

/** The copy's TypeScript: this checkout's, or a stand-in of the same version whose tsc leaves a mark and fails. */
async function useTypescript(which: 'real' | 'stand-in'): Promise<void> {
  const dir = path.join(pkg, TS);
  await rm(dir, { recursive: true, force: true });
  if (which === 'real') return symlink(path.join(ROOT, TS), dir, 'dir');
  const { version } = JSON.parse(await readFile(path.join(ROOT, TS, 'package.json'), 'utf8'));
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'typescript', version, bin: { tsc: 'bin/tsc' } }));
  await writeFile(path.join(dir, 'bin/tsc'), `#!/usr/bin/env node\nrequire('node:fs').appendFileSync(${JSON.stringify(tscMark())}, 'tsc ran\\n');\nprocess.exit(3);\n`, { mode: 0o755 });
}

/** `npm start -- --host 127.0.0.1 --port 0` in the copy; stops the daemon once it answers healthz. */
async function npmStart() {
  const home = await tempDir('svc-code-test-');
  try {
    const d = await launch(['npm', 'start', '--', '--host', '127.0.0.1', '--port', '0'], { cwd: pkg, env: daemonEnv(home), listenMs: BUILD_MS });
    try {
      const health = await fetch(`${d.baseUrl}/api/v1/healthz`);
      return { health: health.status, stdout: d.stdout(), stderr: d.stderr() };
    } finally {
      await d.stop();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** mtime (ms) of every file of the copy's dist/, by path. */
async function distTimes(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const e of await readdir(path.join(pkg, 'dist'), { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    out.set(path.relative(pkg, file), (await stat(file)).mtimeMs);
  }
  return out;
}

test.serial('a current build starts at once: the compiler is not run and nothing in dist/ is rewritten', async (t) => {
  const before = await distTimes();
  t.true(before.has('dist/.build-stamp.json') && before.has('dist/src/cli/main.js'));
  await useTypescript('stand-in');
  t.teardown(() => useTypescript('real'));
  const run = await npmStart();
  t.is(run.health, 200);
  t.false(existsSync(tscMark()), 'tsc ran');
  t.false(run.stderr.includes(BUILDING), run.stderr);
  t.deepEqual(await distTimes(), before);
});

test.serial('a fresh checkout (new mtimes, same bytes) is still current', async (t) => {
  const later = new Date(Date.now() + 3_600_000);
  for (const dir of [...COMPILED, 'scripts']) {
    for (const e of await readdir(path.join(pkg, dir), { recursive: true, withFileTypes: true })) {
      if (e.isFile()) await utimes(path.join(e.parentPath, e.name), later, later);
    }
  }
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) await utimes(path.join(pkg, f), later, later);
  t.is(buildScript('--check', pkg).status, 0);
});

test.serial('changed sources are compiled before the daemon starts, and the build is current again', async (t) => {
  t.timeout(BUILD_MS);
  const main = path.join(pkg, 'src/cli/serve.ts');
  const source = await readFile(main, 'utf8');
  const anchor = '  process.stdout.write(`svc-code ${version} listening on';
  t.true(source.includes(anchor));
  await writeFile(main, source.replace(anchor, `  process.stdout.write('built-from-changed-sources\\n');\n${anchor}`));
  const stale = buildScript('--check', pkg);
  t.is(stale.status, 1);
  t.regex(stale.stderr, /sources changed/);

  const run = await npmStart();
  t.regex(run.stderr, new RegExp(BUILDING));
  t.is(run.health, 200);
  // The daemon that started is the one built from the edited source.
  t.regex(run.stdout, /built-from-changed-sources\n[^]*listening on/);
  t.is(buildScript('--check', pkg).status, 0);
});

test.serial('a build that fails leaves no stamp and starts nothing', async (t) => {
  t.timeout(BUILD_MS);
  const bad = path.join(pkg, 'src/cli/broken.ts');
  await writeFile(bad, 'export const broken: number = "not a number";\n');
  const home = await tempDir('svc-code-test-');
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const err = await t.throwsAsync(launch(['npm', 'start', '--', '--host', '127.0.0.1', '--port', '0'], { cwd: pkg, env: daemonEnv(home), listenMs: BUILD_MS }));
  t.regex(err!.message, /exited with [1-9]/);
  t.regex(err!.message, /TS2322/);
  t.notRegex(err!.message, /listening on/);
  t.is(buildScript('--check', pkg).status, 1);
  await rm(bad);
});
