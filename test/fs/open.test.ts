import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { tempDir } from '../helpers/fs.ts';
import { startFsFixture } from '../helpers/fs-fixture.ts';

// The server runs in this process and reads the environment when it launches;
// every test here changes it, so they run one at a time.

const LAUNCH_VARS = ['DISPLAY', 'WAYLAND_DISPLAY', 'PATH', 'SVC_CODE_OPEN_FILE_MANAGER', 'SVC_CODE_OPEN_EDITOR_A', 'SVC_CODE_OPEN_EDITOR_B', 'SVC_CODE_OPEN_TERMINAL_A', 'SVC_CODE_OPEN_TERMINAL_B'];
const saved = Object.fromEntries(LAUNCH_VARS.map((k) => [k, process.env[k]]));

test.afterEach.always(() => {
  for (const [k, val] of Object.entries(saved)) {
    if (val === undefined) delete process.env[k];
    else process.env[k] = val;
  }
});

function noDesktop(): void {
  delete process.env.DISPLAY;
  delete process.env.WAYLAND_DISPLAY;
}

/** A directory put first on PATH holding fake `xdg-open` and `open` that log their arguments (or fail). */
async function fakeOpener(t: { teardown(fn: () => Promise<void>): void }, exitCode = 0): Promise<string> {
  const bin = await tempDir('svc-code-bin-');
  t.teardown(() => rm(bin, { recursive: true, force: true }));
  const script = `#!/bin/sh\necho "$@" >> "${bin}/calls"\necho "no handler for $1" >&2\nexit ${exitCode}\n`;
  for (const name of ['xdg-open', 'open']) {
    await writeFile(path.join(bin, name), script);
    await chmod(path.join(bin, name), 0o755);
  }
  process.env.PATH = `${bin}${path.delimiter}${saved.PATH ?? ''}`;
  process.env.DISPLAY = ':99';
  return bin;
}

test.serial('open and reveal without a desktop fail fast with 50001', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  noDesktop();
  const open = await f.fs('open', { path: 'README.md' });
  t.is(open.code, process.platform === 'linux' ? 50001 : open.code);
  if (process.platform === 'linux') {
    t.regex(open.msg, /no desktop session/);
    const reveal = await f.fs('reveal', { path: 'src' });
    t.is(reveal.code, 50001);
    t.regex(reveal.msg, /DISPLAY/);
    const fm = await f.fs('open-in', { app_id: 'file_manager', path: 'src' });
    t.is(fm.code, 50001, 'an unset file_manager falls back to the desktop opener');
  }
});

test.serial('open and reveal run the platform opener; a failing opener is 50001', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const bin = await fakeOpener(t);
  t.deepEqual((await f.fs('open', { path: 'README.md', line: 3 })).data, { opened: true });
  t.deepEqual((await f.fs('reveal', { path: 'src/index.ts' })).data, { revealed: true });
  const calls = (await readFile(path.join(bin, 'calls'), 'utf8')).trim().split('\n');
  t.is(calls[0], path.join(f.ws, 'README.md'));
  t.is(calls[1], process.platform === 'darwin' ? `-R ${path.join(f.ws, 'src', 'index.ts')}` : path.join(f.ws, 'src'));

  await fakeOpener(t, 3);
  const failed = await f.fs('open', { path: 'README.md' });
  t.is(failed.code, 50001);
  t.regex(failed.msg, /exited with code 3: no handler for/);
  process.env.PATH = '/nonexistent';
  const missing = await f.fs('reveal', { path: 'README.md' });
  t.is(missing.code, 50001);
  t.regex(missing.msg, /not found/);
});

test.serial('open-in runs the configured command with {path}, {dir} and {line}', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  const out = path.join(f.ws, 'launched.out');
  process.env.SVC_CODE_OPEN_EDITOR_B = `sh -c 'echo "$1 $2" > "$3"' _ {path}:{line} "{dir}" ${out}`;
  const r = await f.fs('open-in', { app_id: 'editor_b', path: 'src/index.ts', line: 7 });
  t.deepEqual(r.data, { opened: true });
  t.is((await readFile(out, 'utf8')).trim(), `${path.join(f.ws, 'src', 'index.ts')}:7 ${path.join(f.ws, 'src')}`);
  process.env.SVC_CODE_OPEN_TERMINAL_A = `touch`;
  t.is((await f.fs('open-in', { app_id: 'terminal_a', path: 'new.txt' })).code, 0);
  t.truthy(await readFile(path.join(f.ws, 'new.txt'), 'utf8'), 'the path is appended when no placeholder is used');
  // A launcher still running after the grace period counts as started.
  process.env.SVC_CODE_OPEN_TERMINAL_B = "sh -c 'sleep 4' _ {dir}";
  t.deepEqual((await f.fs('open-in', { app_id: 'terminal_b', path: '.' })).data, { opened: true });
});

test.serial('open-in failures: not configured, failing or missing command', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  delete process.env.SVC_CODE_OPEN_EDITOR_A;
  const unset = await f.fs('open-in', { app_id: 'editor_a', path: 'README.md' });
  t.is(unset.code, 50001);
  t.regex(unset.msg, /application not configured: set SVC_CODE_OPEN_EDITOR_A/);
  process.env.SVC_CODE_OPEN_EDITOR_A = 'false';
  const failed = await f.fs('open-in', { app_id: 'editor_a', path: 'README.md' });
  t.is(failed.code, 50001);
  t.regex(failed.msg, /false exited with code 1/);
  process.env.SVC_CODE_OPEN_EDITOR_A = 'svc-code-no-such-editor {path}';
  const missing = await f.fs('open-in', { app_id: 'editor_a', path: 'README.md' });
  t.is(missing.code, 50001);
  t.regex(missing.msg, /svc-code-no-such-editor not found/);
});

test.serial('open, open-in, reveal: path and body errors come before any launch', async (t) => {
  const f = await startFsFixture((fn) => t.teardown(fn));
  process.env.SVC_CODE_OPEN_EDITOR_A = 'true';
  for (const action of ['open', 'reveal', 'open-in']) {
    const base = action === 'open-in' ? { app_id: 'editor_a' } : {};
    t.is((await f.fs(action, { ...base, path: 'missing.txt' })).code, 40409, action);
    t.is((await f.fs(action, { ...base, path: '../outside' })).code, 41304, action);
    t.is((await f.fs(action, { ...base, path: 'link-out' })).code, 41304, action);
    t.is((await f.fs(action, { ...base, path: 'README.md', runtime_id: 'remote' })).code, 40420, action);
    t.is((await f.fs(action, base)).code, 40001, action);
  }
  t.is((await f.fs('open-in', { app_id: 'vim', path: 'README.md' })).code, 40001);
  t.is((await f.fs('open', { path: 'README.md', line: 0 })).code, 40001);
});
