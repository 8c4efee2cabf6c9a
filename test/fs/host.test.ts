import { accessSync, closeSync, constants, mkdirSync, openSync, readdirSync, rmdirSync } from 'node:fs';
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { scratchDir, tempDir } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';

const q = (p: string) => encodeURIComponent(p);

/** First candidate the given probe fails on with EACCES/EPERM (a chmod 000 path unless running as root, else /proc, /sys). */
function denied(candidates: string[], probe: (p: string) => void): string {
  for (const c of candidates) {
    try {
      probe(c);
    } catch (err) {
      if (['EACCES', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) return c;
    }
  }
  throw new Error(`no path is denied to this user among ${candidates.join(', ')}`);
}

async function lockedDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await tempDir('svc-code-locked-');
  await writeFile(path.join(dir, 'file'), 'x');
  await chmod(dir, 0o000);
  t.teardown(async () => {
    await chmod(dir, 0o700);
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}

function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    }).on('error', reject);
  });
}

test('fs:home: home directory and workspace roots, most recently opened first', async (t) => {
  const s = await serverFor(t);
  const [a, b] = [await scratchDir(t), await scratchDir(t)];
  t.deepEqual((await s.get('/api/v1/fs:home')).data, { home: os.homedir(), recent_roots: [] });
  t.is((await s.post('/api/v1/workspaces', { root: a })).code, 0);
  s.clock.advance(1000);
  t.is((await s.post('/api/v1/workspaces', { root: b })).code, 0);
  t.deepEqual((await s.get('/api/v1/fs:home')).data.recent_roots, [b, a]);
});

test('fs:browse: sub-directories only, parent, defaults and errors', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  await mkdir(path.join(root, 'b-dir'));
  await mkdir(path.join(root, '.hidden'));
  await mkdir(path.join(root, 'A-dir'));
  await writeFile(path.join(root, 'file.txt'), 'x');
  await symlink(path.join(root, 'b-dir'), path.join(root, 'link-dir'));
  await symlink(path.join(root, 'file.txt'), path.join(root, 'link-file'));
  const r = await s.get(`/api/v1/fs:browse?path=${q(root)}`);
  t.is(r.code, 0, JSON.stringify(r));
  t.is(r.data.path, root);
  t.is(r.data.parent, path.dirname(root));
  t.deepEqual(r.data.entries, ['.hidden', 'A-dir', 'b-dir', 'link-dir'].map((name) => ({ name, path: path.join(root, name), is_dir: true })));
  t.is((await s.get('/api/v1/fs:browse?path=%2F')).data.parent, null);
  t.is((await s.get('/api/v1/fs:browse')).data.path, os.homedir());
  t.is((await s.get(`/api/v1/fs:browse?path=${q(root + '/b-dir/..')}`)).data.path, root);

  const rel = await s.get('/api/v1/fs:browse?path=relative/dir');
  t.is(rel.code, 40001);
  t.is(rel.details[0].field, 'path');
  t.is((await s.get(`/api/v1/fs:browse?path=${q(path.join(root, 'nope'))}`)).code, 40409);
  t.is((await s.get(`/api/v1/fs:browse?path=${q(path.join(root, 'file.txt'))}`)).code, 40409);
  const locked = await lockedDir(t);
  const closed = denied([locked, '/proc/1/map_files'], (p) => readdirSync(p));
  t.is((await s.get(`/api/v1/fs:browse?path=${q(closed)}`)).code, 40411);
});

test('fs:content: raw bytes with Range and ETag; errors are envelopes', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const file = path.join(root, 'data.json');
  await writeFile(file, '{"hello":"world"}');
  const auth = { Authorization: `Bearer ${s.token}` };
  const url = `${s.baseUrl}/api/v1/fs:content?path=${q(file)}`;
  const full = await rawGet(url, auth);
  t.is(full.status, 200);
  t.is(full.body, '{"hello":"world"}');
  t.regex(String(full.headers['content-type']), /application\/json/);
  const etag = String(full.headers.etag);
  t.is((await rawGet(url, { ...auth, 'If-None-Match': etag })).status, 304);
  const part = await rawGet(url, { ...auth, Range: 'bytes=1-7' });
  t.is(part.status, 206);
  t.is(part.body, '"hello"');

  const env = async (p: string) => {
    const res = await rawGet(`${s.baseUrl}/api/v1/fs:content?path=${q(p)}`, auth);
    t.is(res.status, 200);
    return JSON.parse(res.body).code as number;
  };
  t.is(await env('data.json'), 40001);
  t.is(await env(root), 40906);
  t.is(await env(path.join(root, 'missing')), 40409);
  t.is(await env('/dev/null'), 40001, 'not a regular file');
  t.is((await rawGet(`${s.baseUrl}/api/v1/fs:content`, auth)).status, 200);
  t.is(JSON.parse((await rawGet(`${s.baseUrl}/api/v1/fs:content`, auth)).body).code, 40001);
  const locked = await lockedDir(t);
  const closedFile = denied([path.join(locked, 'file'), '/proc/1/environ', '/proc/1/mem'], (p) => closeSync(openSync(p, 'r')));
  t.is(await env(closedFile), 40411);
});

test('fs:mkdir (host): non-recursive creation and its errors', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const target = path.join(root, 'made');
  const r = await s.post('/api/v1/fs:mkdir', { path: target });
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data, { path: target });
  accessSync(target, constants.F_OK);
  t.is((await s.post('/api/v1/fs:mkdir', { path: target })).code, 40919);
  t.is((await s.post('/api/v1/fs:mkdir', { path: path.join(root, 'x', 'y') })).code, 40409);
  t.is((await s.post('/api/v1/fs:mkdir', { path: 'relative' })).code, 40001);
  t.is((await s.post('/api/v1/fs:mkdir', {})).code, 40001);
  const locked = await lockedDir(t);
  const closed = denied([path.join(locked, 'sub'), '/sys/svc-code-probe', '/proc/svc-code-probe'], (p) => {
    mkdirSync(p);
    rmdirSync(p);
  });
  t.is((await s.post('/api/v1/fs:mkdir', { path: closed })).code, 40411);
});

test('host routes need the token', async (t) => {
  const s = await serverFor(t);
  for (const url of ['/api/v1/fs:home', '/api/v1/fs:browse', `/api/v1/fs:content?path=${q('/etc/hostname')}`]) {
    t.is((await fetch(s.baseUrl + url)).status, 401, url);
  }
  t.is((await fetch(`${s.baseUrl}/api/v1/fs:mkdir`, { method: 'POST' })).status, 401);
});
