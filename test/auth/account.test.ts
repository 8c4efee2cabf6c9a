import test from 'ava';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loginApproved, startLoginHarness } from '../helpers/login.ts';

const STATUS = '/api/v1/auth/status';
const credFile = (home: string) => path.join(home, 'credentials', 'managed.json');

test('status reads plan usage live; an upstream failure is reported in band', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  const before = await h.s.get(STATUS);
  t.is(before.code, 0);
  t.deepEqual(before.data, { kind: 'error', message: 'not logged in' });
  await loginApproved(h);
  const ok = await h.s.get(`${STATUS}?provider=managed`);
  t.is(ok.data.kind, 'ok');
  t.deepEqual(ok.data.summary, { name: 'weekly', window: { duration: 7, unit: 'day' }, used: 12, limit: 100, reset_at: '2030-01-01T00:00:00Z' });
  t.is(ok.data.limits.length, 2);
  t.is(ok.data.extra_usage, null);
  h.fixture.failAccount(503);
  const failed = await h.s.get(STATUS);
  t.is(failed.code, 0);
  t.is(failed.data.kind, 'error');
  t.is(failed.data.status, 503);
  t.regex(failed.data.message, /usage service unavailable/);
});

test('view=profile returns the account profile', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  await loginApproved(h);
  const res = await h.s.get(`${STATUS}?view=profile`);
  t.is(res.data.kind, 'ok');
  t.like(res.data.userInfo, { userId: 'u_1', nickname: 'Ada', userLevel: 2, domainName: 'Personal', phone: { countryCode: '+1', number: '5550100' } });
  t.is((await h.s.get(`${STATUS}?view=nope`)).code, 40001);
  h.fixture.failAccount(500);
  t.like((await h.s.get(`${STATUS}?view=profile`)).data, { kind: 'error', status: 500 });
});

test('a token about to expire is refreshed before use and written back', async (t) => {
  // 30 s tokens are inside the one-minute refresh window.
  const h = await startLoginHarness({ fixture: { tokenExpiresIn: 30 } });
  t.teardown(() => h.stop());
  await loginApproved(h);
  const [first] = h.fixture.accessTokens();
  const res = await h.s.get(STATUS);
  t.is(res.data.kind, 'ok');
  t.true(h.fixture.log.includes('POST /oauth/token refresh_token'));
  const [, second] = h.fixture.accessTokens();
  t.truthy(second);
  const cred = JSON.parse(await readFile(credFile(h.s.home), 'utf8'));
  t.is(cred.access_token, second);
  t.not(cred.access_token, first);
  t.is(await h.s.auth.getAccessToken('managed'), h.fixture.accessTokens()[2]);
  const config = await readFile(path.join(h.s.home, 'config.toml'), 'utf8');
  t.false(config.includes(second));
});

test('a refresh rejected by the host marks the login revoked; a new POST starts a flow', async (t) => {
  const h = await startLoginHarness({ fixture: { tokenExpiresIn: 30 } });
  t.teardown(() => h.stop());
  await loginApproved(h);
  h.fixture.revokeRefresh();
  const res = await h.s.get(STATUS);
  t.is(res.data.kind, 'error');
  t.regex(res.data.message, /revoked/);
  t.deepEqual((await h.s.get('/api/v1/auth')).data.managed_provider, { name: 'managed', status: 'revoked' });
  const err = await t.throwsAsync(h.s.auth.getAccessToken('managed'));
  t.is((err as any).code, 40112);
  t.is((await h.s.post('/api/v1/auth/login', {})).data.status, 'pending');
});

test('an expired token with nothing to refresh it reports expired', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  await loginApproved(h);
  const cred = JSON.parse(await readFile(credFile(h.s.home), 'utf8'));
  delete cred.refresh_token;
  cred.expires_at = new Date(Date.now() - 1000).toISOString();
  await writeFile(credFile(h.s.home), JSON.stringify(cred));
  t.deepEqual((await h.s.get('/api/v1/auth')).data.managed_provider, { name: 'managed', status: 'expired' });
});

test('GET /auth: models_ready follows the default model; managed_provider is unauthenticated without a credential', async (t) => {
  const h = await startLoginHarness({
    extraToml: [
      'default_model = "flat"',
      '[providers.managed]', 'type = "svc"', 'oauth = { storage = "file", key = "managed" }',
      '[models.flat]', 'model = "x"', 'max_context_size = 1000', 'base_url = "http://127.0.0.1:9/v1"',
      '[models.orphan]', 'provider = "gone"', 'model = "y"', 'max_context_size = 1000',
    ].join('\n'),
  });
  t.teardown(() => h.stop());
  t.deepEqual((await h.s.get('/api/v1/auth')).data, { models_ready: true, providers_count: 1, managed_provider: { name: 'managed', status: 'unauthenticated' } });
  await h.s.post('/api/v1/config', { default_model: 'orphan' });
  t.false((await h.s.get('/api/v1/auth')).data.models_ready);
});

test('GET /auth with an empty config: nothing ready, no managed provider', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  t.deepEqual((await h.s.get('/api/v1/auth')).data, { models_ready: false, providers_count: 0, managed_provider: null });
});
