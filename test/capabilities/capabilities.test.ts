import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../../src/lib/logger.ts';
import { CAPABILITIES } from '../../src/capabilities/defs.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { EventJournal } from '../../src/events/journal.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { ApiError } from '../../protocol/errors.ts';
import { openJournal } from '../helpers/journal.ts';
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

test.serial('no daemon tool backs svc-cu or svc-webbridge: both unsupported even with a display and every program installed; :install is 40925', async (t) => {
  const s = await serverFor(t);
  withEnv(t, { PATH: await fakePath(t, ['scrot', 'xdotool', 'chromium']), DISPLAY: ':99', SVC_CODE_CAPABILITY_PLATFORM: 'linux' });
  const list = (await s.get('/api/v1/capabilities')).data.capabilities;
  t.deepEqual(list.map((c: any) => [c.id, c.supported, c.state]), [['svc-cu', false, 'unsupported'], ['svc-webbridge', false, 'unsupported']]);
  for (const id of ['svc-cu', 'svc-webbridge']) {
    t.like((await s.get(`/api/v1/capabilities/${id}`)).data, { id, supported: false, state: 'unsupported', steps: [], install: { running: false } });
    const r = await s.post(`/api/v1/capabilities/${id}:install`);
    t.is(r.code, 40925);
    t.like(r.details, { capability_id: id });
    t.regex(r.msg, /no tool/);
  }
});

test.serial('40418 for an unknown id; 40925 and state unsupported on an unsupported platform', async (t) => {
  const s = await serverFor(t);
  t.is((await s.get('/api/v1/capabilities/nope')).code, 40418);
  t.is((await s.post('/api/v1/capabilities/nope:install')).code, 40418);
  withEnv(t, { SVC_CODE_CAPABILITY_PLATFORM: 'aix' });
  t.like((await s.get('/api/v1/capabilities/svc-cu')).data, { supported: false, state: 'unsupported', steps: [] });
  const r = await s.post('/api/v1/capabilities/svc-cu:install');
  t.is(r.code, 40925);
  t.like(r.details, { capability_id: 'svc-cu', platform: 'aix' });
});

// The install machinery, for when a tool backs a capability: the registered steps under a stand-in tool name.

async function backed(t: ExecutionContext) {
  const journal = await openJournal(t, {}, EventJournal);
  const home = await scratchDir(t);
  const defs = CAPABILITIES.map((c) => ({ ...c, tools: ['StandIn'] }));
  const service = new CapabilityService({ home, journal, log: createLogger('silent'), defs });
  const changed = async () => (await journal.readRange(GLOBAL_STREAM, 0)).filter((e) => e.type === 'event.capability.changed').map((e) => e.payload as any);
  const settled = async (id: string) => (await until(() => {
    const c = service.get(id);
    return c.install.running ? undefined : c;
  }, 30_000))!;
  return { service, home, changed, settled };
}

test.serial('a backed svc-cu: real checks of PATH and the display; a background install reports step and percent, 40924 while running, then partial until the user installs the tools', async (t) => {
  withEnv(t, { PATH: await fakePath(t, []), DISPLAY: undefined, WAYLAND_DISPLAY: undefined, SVC_CODE_CAPABILITY_PLATFORM: 'linux' });
  const { service, changed, settled } = await backed(t);
  const cu = service.get('svc-cu');
  t.like(cu, { id: 'svc-cu', supported: true, state: 'not_installed', install: { running: false } });
  t.deepEqual(cu.steps.map((x) => [x.id, x.state]), [['display', 'missing'], ['screenshot', 'missing'], ['input', 'missing'], ['runtime', 'missing']]);
  t.like((await service.install('svc-cu')).install, { running: true });
  const busy = await t.throwsAsync(service.install('svc-cu'), { instanceOf: ApiError });
  t.is(busy?.code, 40924);
  const done = await settled('svc-cu');
  t.like(done, { state: 'partial', version: '0.1.0', install: { running: false, percent: 100 } });
  t.regex(done.install.note ?? '', /display, screenshot, input/);
  t.is(done.steps.find((x) => x.id === 'runtime')?.state, 'ok');
  // The in-memory state settles as the last change is appended; its commit may come a moment later under load.
  const events = (await until(async () => {
    const all = await changed();
    return all.at(-1)?.install.running === false ? all : undefined;
  }, 30_000, 'the install\'s last change journaled'))!;
  t.true(events.some((p) => p.install.running && p.install.percent > 0 && p.install.percent < 100 && typeof p.install.step === 'string'));
  t.like(events.at(-1), { capability_id: 'svc-cu', state: 'partial', install: { running: false } });

  withEnv(t, { PATH: await fakePath(t, ['scrot', 'xdotool']), DISPLAY: ':99' });
  t.like(service.get('svc-cu'), { state: 'ready' });
});

test.serial('a backed svc-webbridge: installs its extension folder; ready with a browser on PATH', async (t) => {
  withEnv(t, { PATH: await fakePath(t, ['chromium']), SVC_CODE_CAPABILITY_PLATFORM: 'linux' });
  const { service, home, settled } = await backed(t);
  t.like(service.get('svc-webbridge'), { state: 'not_installed', steps: [{ id: 'browser', state: 'ok' }, { id: 'runtime', state: 'missing' }] });
  await service.install('svc-webbridge');
  const done = await settled('svc-webbridge');
  t.like(done, { state: 'ready', install: { running: false } });
  t.is(done.install.note, undefined);
  const manifest = JSON.parse(await readFile(path.join(home, 'capabilities', 'svc-webbridge', 'extension', 'manifest.json'), 'utf8'));
  t.is(manifest.manifest_version, 3);
});
