import test from 'ava';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loginApproved, startLoginHarness } from '../helpers/login.ts';

const REGION = '/api/v1/oauth/region';
const GLOBAL_HOST = 'https://auth.svc-code.com';
const CN_HOST = 'https://auth.svc-code.cn';

const region = async (h: { s: { get(u: string): Promise<any> } }) => (await h.s.get(REGION)).data.region;

// SVC_CODE_OAUTH_HOST is read when a server starts: the tests that need it start their server with it.
test.serial('default region is mainland-cn; the home marker file is next-to-last', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  t.deepEqual((await h.s.get(REGION)).data, { region: 'mainland-cn' });
  await writeFile(path.join(h.s.home, 'region'), 'global\n');
  t.is(await region(h), 'global');
  await writeFile(path.join(h.s.home, 'region'), 'atlantis\n');
  t.is(await region(h), 'mainland-cn');
});

test.serial('the configured [oauth] region beats the marker file', async (t) => {
  const h = await startLoginHarness({ extraToml: '' });
  t.teardown(() => h.stop());
  await writeFile(path.join(h.s.home, 'region'), 'mainland-cn\n');
  const file = path.join(h.s.home, 'config.toml');
  await writeFile(file, (await readFile(file, 'utf8')).replace('[oauth]\n', '[oauth]\nregion = "global"\n'));
  await h.s.config.reload();
  t.is(await region(h), 'global');
});

test.serial('a pinned host of a known region beats the configured region', async (t) => {
  const pin = async (h: Awaited<ReturnType<typeof startLoginHarness>>) => {
    const file = path.join(h.s.home, 'config.toml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('[oauth]\n', `[oauth]\nhost = "${GLOBAL_HOST}/"\nregion = "mainland-cn"\n`));
    await h.s.config.reload();
  };
  const h = await startLoginHarness({ pinHost: false, extraToml: '' });
  t.teardown(() => h.stop());
  await pin(h);
  t.is(await region(h), 'global');
  // The environment's host beats the file's.
  const env = await startLoginHarness({ pinHost: false, extraToml: '', envHost: CN_HOST });
  t.teardown(() => env.stop());
  await pin(env);
  t.is(await region(env), 'mainland-cn');
});

test.serial('the environment host is used for the login and the body region is recorded in the marker', async (t) => {
  const h = await startLoginHarness({ pinHost: false, envHost: 'fixture' });
  t.teardown(() => h.stop());
  t.is(await region(h), 'mainland-cn');
  const snap = await loginApproved(h, { region: 'global' });
  t.is(snap.status, 'authenticated');
  t.is((await readFile(path.join(h.s.home, 'region'), 'utf8')).trim(), 'global');
  t.is(await region(h), 'global');
  const cred = JSON.parse(await readFile(path.join(h.s.home, 'credentials', 'managed.json'), 'utf8'));
  t.is(cred.region, 'global');
  t.is(cred.host, h.fixture.url);
});
