import test from 'ava';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { additionalDirs } from '../../src/workspaces/add-dir.ts';
import { scratchDir } from '../helpers/fs.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

// `~` expansion uses os.homedir(), which reads $HOME: point it at a temp dir so
// no test touches the real home. Each test file runs in its own process.
const fakeHome = await mkdtemp(path.join(os.tmpdir(), 'svc-code-home-'));
process.env.HOME = fakeHome;
test.after.always(() => rm(fakeHome, { recursive: true, force: true }));

async function setup(t: any): Promise<{ s: TestServer; root: string; id: string; url: string; config: string }> {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const id = (await s.post('/api/v1/workspaces', { root })).data.id;
  return { s, root, id, url: `/api/v1/workspaces/${id}/add-dir`, config: path.join(root, '.svc-code', 'local.toml') };
}

const readToml = async (file: string) => parse(await readFile(file, 'utf8')) as any;

test('absolute, relative and ~ paths persist to local.toml without duplicates', async (t) => {
  const { s, root, url, config } = await setup(t);
  const abs = await scratchDir(t, 'svc-code-extra-');
  await mkdir(path.join(root, 'sub'));
  await mkdir(path.join(fakeHome, 'notes'), { recursive: true });

  const r1 = await s.post(url, { path: abs });
  t.is(r1.code, 0);
  t.deepEqual(r1.data, { project_root: root, config_path: config, additional_dirs: [abs], persisted: true });
  const r2 = await s.post(url, { path: 'sub', persist: true });
  t.deepEqual(r2.data.additional_dirs, [abs, path.join(root, 'sub')]);
  const r3 = await s.post(url, { path: '~/notes' });
  t.deepEqual(r3.data.additional_dirs, [abs, path.join(root, 'sub'), path.join(fakeHome, 'notes')]);
  const dup = await s.post(url, { path: abs + '/' });
  t.deepEqual(dup.data.additional_dirs, r3.data.additional_dirs, 'no duplicates');
  t.deepEqual((await readToml(config)).workspace.additional_dir, r3.data.additional_dirs);
});

test('persist keeps other keys of local.toml', async (t) => {
  const { s, root, url, config } = await setup(t);
  await mkdir(path.dirname(config));
  await writeFile(config, 'top = 1\n[workspace]\nother = "kept"\nadditional_dir = ["/already"]\n[misc]\nflag = true\n');
  await mkdir(path.join(root, 'lib'));
  const r = await s.post(url, { path: './lib' });
  t.deepEqual(r.data.additional_dirs, ['/already', path.join(root, 'lib')]);
  const doc = await readToml(config);
  t.is(doc.top, 1);
  t.is(doc.workspace.other, 'kept');
  t.true(doc.misc.flag);
  t.deepEqual(doc.workspace.additional_dir, ['/already', path.join(root, 'lib')]);
});

test('persist false keeps the directory in memory only, shared by the workspace', async (t) => {
  const { s, url, config, id } = await setup(t);
  const a = await scratchDir(t, 'svc-code-extra-');
  const b = await scratchDir(t, 'svc-code-extra-');
  await s.post(url, { path: a });
  const r = await s.post(url, { path: b, persist: false });
  t.is(r.code, 0);
  t.false(r.data.persisted);
  t.deepEqual(r.data.additional_dirs, [a, b], 'persisted first, then in-memory');
  t.deepEqual((await readToml(config)).workspace.additional_dir, [a]);
  t.deepEqual(s.workspaceDirs.inMemory(id), [b]);

  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  const c = await scratchDir(t, 'svc-code-extra-');
  const after = await s2.post(url, { path: c, persist: false });
  t.deepEqual(after.data.additional_dirs, [a, c], 'in-memory entries do not survive a restart');
});

test('persist false on a fresh workspace creates no config file', async (t) => {
  const { s, url, config } = await setup(t);
  const a = await scratchDir(t, 'svc-code-extra-');
  const r = await s.post(url, { path: a, persist: false });
  t.deepEqual(r.data.additional_dirs, [a]);
  await t.throwsAsync(stat(config), { code: 'ENOENT' });
});

test('home, filesystem root, missing and file paths are refused', async (t) => {
  const { s, root, url, config } = await setup(t);
  for (const p of ['~', fakeHome, '/', '../../../../../../../../..']) {
    const r = await s.post(url, { path: p });
    t.is(r.code, 40001, p);
    t.deepEqual(r.details.map((d: any) => d.field), ['path'], p);
  }
  const missing = await s.post(url, { path: 'nope' });
  t.is(missing.code, 40409);
  await writeFile(path.join(root, 'f.txt'), 'x');
  t.is((await s.post(url, { path: 'f.txt' })).code, 40409);
  await t.throwsAsync(stat(config), { code: 'ENOENT' }, 'nothing written');
});

test('body validation and unknown workspace', async (t) => {
  const { s, url } = await setup(t);
  const none = await s.post(url, {});
  t.is(none.code, 40001);
  t.deepEqual(none.details.map((d: any) => d.field), ['path']);
  t.is((await s.post(url, { path: '' })).code, 40001);
  const bad = await s.post(url, { path: '/tmp', persist: 'yes' });
  t.is(bad.code, 40001);
  t.deepEqual(bad.details.map((d: any) => d.field), ['persist']);
  t.is((await s.post('/api/v1/workspaces/wd_nope_000000000000/add-dir', { path: '/tmp' })).code, 40410);
});

test('a corrupted local.toml answers 40001 and is left untouched', async (t) => {
  const { s, url, config } = await setup(t);
  const a = await scratchDir(t, 'svc-code-extra-');
  await mkdir(path.dirname(config));
  const broken = '[workspace\nadditional_dir = [';
  await writeFile(config, broken);
  for (const persist of [true, false]) {
    const r = await s.post(url, { path: a, persist });
    t.is(r.code, 40001);
    t.is(r.details[0].field, 'config_path');
    t.regex(r.msg, /corrupted project local config/);
  }
  t.is(await readFile(config, 'utf8'), broken);
  await writeFile(config, 'workspace = "not a table"\n');
  t.is((await s.post(url, { path: a })).code, 40001, 'wrong shape counts as corrupted');
});

test('additionalDirs: local.toml entries count only while trusted', async (t) => {
  const { s, id, url, config } = await setup(t);
  const a = await scratchDir(t, 'svc-code-extra-');
  const b = await scratchDir(t, 'svc-code-extra-');
  await s.post(url, { path: a });
  await s.post(url, { path: b, persist: false });
  t.deepEqual(await additionalDirs(s, id), [b], 'untrusted: in-memory only');
  await s.post(`/api/v1/workspaces/${id}/trust`);
  t.deepEqual(await additionalDirs(s, id), [a, b]);
  // Hand-edited entries resolving to home or / are ignored.
  await writeFile(config, `[workspace]\nadditional_dir = ["${a}", "/", "${fakeHome}", "relative"]\n`);
  t.deepEqual(await additionalDirs(s, id), [a, b]);
  await writeFile(config, 'not toml [');
  t.deepEqual(await additionalDirs(s, id), [b], 'corrupted file contributes nothing');
  await s.req('DELETE', `/api/v1/workspaces/${id}`);
  t.deepEqual(await additionalDirs(s, id), [], 'unregistered workspace');
});
