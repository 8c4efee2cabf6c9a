import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { serverFor } from '../helpers/server.ts';
import { scratchDir } from '../helpers/fs.ts';
import { until } from '../helpers/wait.ts';

// Each step of an install waits this long, so a running install can be observed (a test setting): a second
// :install sent right after the first must find it running, however slow the machine (4 steps: 2 s).
process.env.SVC_CODE_CAPABILITY_STEP_DELAY_MS = '500';

/** A PATH holding only fake executables named `names`. */
async function fakePath(t: { teardown(fn: () => unknown): void }, names: string[]): Promise<string> {
  const dir = await scratchDir(t);
  for (const n of names) {
    await writeFile(path.join(dir, n), '#!/bin/sh\nexit 0\n');
    await chmod(path.join(dir, n), 0o755);
  }
  return dir;
}

function withEnv(t: { teardown(fn: () => unknown): void }, vars: Record<string, string | undefined>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) v === undefined ? delete process.env[k] : (process.env[k] = v);
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
  });
}

test.serial('svc-cu: real checks of PATH and the display; a background install reports step and percent, 40924 while running, then partial until the user installs the tools', async (t) => {
  const s = await serverFor(t);
  withEnv(t, { PATH: await fakePath(t, []), DISPLAY: undefined, WAYLAND_DISPLAY: undefined });
  const list = (await s.get('/api/v1/capabilities')).data.capabilities;
  t.deepEqual(list.map((c: any) => c.id), ['svc-cu', 'svc-webbridge']);
  const cu = (await s.get('/api/v1/capabilities/svc-cu')).data;
  t.like(cu, { id: 'svc-cu', supported: true, state: 'not_installed', install: { running: false } });
  t.deepEqual(cu.steps.map((x: any) => [x.id, x.state]), [['display', 'missing'], ['screenshot', 'missing'], ['input', 'missing'], ['runtime', 'missing']]);

  const ws = await s.ws();
  t.teardown(() => ws.close());
  const started = await s.post('/api/v1/capabilities/svc-cu:install');
  t.is(started.code, 0);
  t.like(started.data.install, { running: true });
  t.is((await s.post('/api/v1/capabilities/svc-cu:install')).code, 40924);
  // Every step is announced (polling could miss them on a slow machine): one past the first reports its percent.
  const mid = (await ws.waitFor((f) => f.type === 'event.capability.changed' && f.payload.capability_id === 'svc-cu' && f.payload.install.running && f.payload.install.percent > 0)).payload;
  t.true(typeof mid.install.step === 'string' && mid.install.percent < 100);
  const done = await until(async () => {
    const c = (await s.get('/api/v1/capabilities/svc-cu')).data;
    return c.install.running ? undefined : c;
  }, 30_000);
  t.like(done, { state: 'partial', version: '0.1.0', install: { running: false, percent: 100 } });
  t.regex(done.install.note, /display, screenshot, input/);
  t.is(done.steps.find((x: any) => x.id === 'runtime').state, 'ok');
  await ws.waitFor((f) => f.type === 'event.capability.changed' && f.payload.capability_id === 'svc-cu' && f.payload.install.running === false, 30_000);

  withEnv(t, { PATH: await fakePath(t, ['scrot', 'xdotool']), DISPLAY: ':99' });
  t.like((await s.get('/api/v1/capabilities/svc-cu')).data, { state: 'ready' });
});

test.serial('svc-webbridge: installs its extension folder; ready with a browser on PATH', async (t) => {
  const s = await serverFor(t);
  withEnv(t, { PATH: await fakePath(t, ['chromium']) });
  t.like((await s.get('/api/v1/capabilities/svc-webbridge')).data, { state: 'not_installed', steps: [{ id: 'browser', state: 'ok' }, { id: 'runtime', state: 'missing' }] });
  t.is((await s.post('/api/v1/capabilities/svc-webbridge:install')).code, 0);
  const done = await until(async () => {
    const c = (await s.get('/api/v1/capabilities/svc-webbridge')).data;
    return c.install.running ? undefined : c;
  }, 30_000);
  t.like(done, { state: 'ready', install: { running: false } });
  t.is(done.install.note, undefined);
  const manifest = JSON.parse(await readFile(path.join(s.home, 'capabilities', 'svc-webbridge', 'extension', 'manifest.json'), 'utf8'));
  t.is(manifest.manifest_version, 3);
});

test.serial('40418 for an unknown id; 40925 and state unsupported on an unsupported platform', async (t) => {
  const s = await serverFor(t);
  t.is((await s.get('/api/v1/capabilities/nope')).code, 40418);
  t.is((await s.post('/api/v1/capabilities/nope:install')).code, 40418);
  withEnv(t, { SVC_CODE_CAPABILITY_PLATFORM: 'aix' });
  t.like((await s.get('/api/v1/capabilities/svc-cu')).data, { supported: false, state: 'unsupported', steps: [] });
  t.is((await s.post('/api/v1/capabilities/svc-cu:install')).code, 40925);
});
