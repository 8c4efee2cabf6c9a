import test from 'ava';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import { loginApproved, startLoginHarness, TEST_POLL_UNIT_MS, waitResolved, type LoginHarness } from '../helpers/login.ts';
import { until } from '../helpers/wait.ts';

const LOGIN = '/api/v1/auth/login';

/** Waits until the live flow has polled the host twice more: every poller still running has polled since. */
async function polledTwice(h: LoginHarness, userCode: string): Promise<void> {
  const from = h.fixture.polls(userCode);
  await until(() => h.fixture.polls(userCode) >= from + 2);
}

test('POST login answers a pending snapshot from the host; GET returns it', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  t.is((await h.s.get(LOGIN)).data, null);
  const res = await h.s.post(LOGIN, {});
  t.is(res.code, 0);
  const snap = res.data;
  t.regex(snap.flow_id, /^flow_[0-9A-Z]{26}$/);
  t.is(snap.provider, 'managed');
  t.is(snap.status, 'pending');
  t.is(snap.user_code, h.fixture.userCodes()[0]);
  t.is(snap.verification_uri, `${h.fixture.url}/device`);
  t.is(snap.verification_uri_complete, `${h.fixture.url}/device?user_code=${snap.user_code}`);
  t.is(snap.expires_in, 600);
  t.is(snap.interval, 1);
  const left = Date.parse(snap.expires_at) - Date.now();
  t.true(left > 590_000 && left <= 600_000);
  const got = await h.s.get(`${LOGIN}?provider=managed`);
  t.like(got.data, { flow_id: snap.flow_id, status: 'pending', user_code: snap.user_code });
  t.is(got.data.resolved_at, undefined);
});

test('approval stores the credential outside config.toml and writes the managed provider, aliases and default model', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  const snap = await loginApproved(h);
  t.is(snap.status, 'authenticated');
  t.truthy(snap.resolved_at);
  t.is(snap.error_message, undefined);
  const text = await readFile(path.join(h.s.home, 'config.toml'), 'utf8');
  const doc = parse(text) as any;
  t.deepEqual(doc.providers.managed, { type: 'svc', base_url: `${h.fixture.url}/v1`, oauth: { storage: 'file', key: 'managed' } });
  t.like(doc.models['managed/svc-large'], { provider: 'managed', model: 'svc-large', max_context_size: 262144, display_name: 'SVC Large' });
  t.like(doc.models['managed/svc-small'], { provider: 'managed', model: 'svc-small' });
  t.is(doc.default_model, 'managed/svc-large');
  const [token] = h.fixture.accessTokens();
  t.false(text.includes(token));
  t.false(text.includes('rt_'));
  const credFile = path.join(h.s.home, 'credentials', 'managed.json');
  t.is((await stat(credFile)).mode & 0o777, 0o600);
  const cred = JSON.parse(await readFile(credFile, 'utf8'));
  t.is(cred.access_token, token);
  t.regex(cred.refresh_token, /^rt_/);
  const config = await h.s.get('/api/v1/config');
  t.is(config.data.providers.managed.type, 'svc');
  t.false(JSON.stringify(config.data).includes(token));
  await until(() => h.configEvents.length > 0);
  t.true(h.configEvents.some((e) => (e.payload as any).changedFields.includes('defaultModel')));
  const auth = await h.s.get('/api/v1/auth');
  t.deepEqual(auth.data, { models_ready: true, providers_count: 1, managed_provider: { name: 'managed', status: 'authenticated' } });
});

test('an existing default model is kept when the managed models are added', async (t) => {
  const h = await startLoginHarness({ extraToml: 'default_model = "flat"\n[models.flat]\nmodel = "x"\nmax_context_size = 1000\nbase_url = "http://127.0.0.1:9/v1"\n' });
  t.teardown(() => h.stop());
  await loginApproved(h);
  const doc = parse(await readFile(path.join(h.s.home, 'config.toml'), 'utf8')) as any;
  t.is(doc.default_model, 'flat');
  t.truthy(doc.models['managed/svc-small']);
});

test('a denied login resolves denied with an error message', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  const started = (await h.s.post(LOGIN, {})).data;
  h.fixture.deny(started.user_code);
  const snap = await waitResolved(h.s);
  t.is(snap.status, 'denied');
  t.is(snap.error_message, 'the user declined the request');
  t.truthy(snap.resolved_at);
  t.is((await h.s.get('/api/v1/auth')).data.managed_provider, null);
});

test('the device code deadline resolves expired', async (t) => {
  const h = await startLoginHarness({ fixture: { deviceExpiresIn: 1 } });
  t.teardown(() => h.stop());
  await h.s.post(LOGIN, {});
  const snap = await waitResolved(h.s);
  t.is(snap.status, 'expired');
  t.regex(snap.error_message, /expired/);
});

test('expired_token from the host resolves expired; slow_down widens the interval', async (t) => {
  const h = await startLoginHarness({ fixture: { expireAfterPolls: 2, slowDownFirst: true } });
  t.teardown(() => h.stop());
  const started = (await h.s.post(LOGIN, {})).data;
  const snap = await waitResolved(h.s);
  t.is(snap.status, 'expired');
  t.is(snap.interval, 6);
  t.is(h.fixture.polls(started.user_code), 2);
});

test('DELETE cancels a pending flow once; later DELETEs report the last state', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  t.deepEqual((await h.s.req('DELETE', LOGIN)).body.data, { cancelled: false, status: null });
  const started = (await h.s.post(LOGIN, {})).data;
  t.deepEqual((await h.s.req('DELETE', `${LOGIN}?provider=managed`)).body.data, { cancelled: true, status: 'cancelled' });
  const snap = (await h.s.get(LOGIN)).data;
  t.is(snap.status, 'cancelled');
  t.truthy(snap.resolved_at);
  t.deepEqual((await h.s.req('DELETE', LOGIN)).body.data, { cancelled: false, status: 'cancelled' });
  // The user approving a cancelled flow changes nothing. No flow is left to show it: give a poller
  // that had survived the cancel five poll intervals to poll again.
  h.fixture.approve(started.user_code);
  const polls = h.fixture.polls(started.user_code);
  await new Promise((r) => setTimeout(r, 5 * TEST_POLL_UNIT_MS));
  t.is(h.fixture.polls(started.user_code), polls);
  t.is((await h.s.get(LOGIN)).data.status, 'cancelled');
});

test('a second POST aborts the first flow', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  const first = (await h.s.post(LOGIN, {})).data;
  const second = (await h.s.post(LOGIN, { provider: 'managed' })).data;
  t.not(second.flow_id, first.flow_id);
  t.not(second.user_code, first.user_code);
  h.fixture.approve(first.user_code);
  await polledTwice(h, second.user_code); // a poller of the first flow would have taken its token by now
  t.is(h.fixture.accessTokens().length, 0);
  const pending = (await h.s.get(LOGIN)).data;
  t.is(pending.flow_id, second.flow_id);
  t.is(pending.status, 'pending');
  h.fixture.approve(second.user_code);
  t.is((await waitResolved(h.s)).status, 'authenticated');
});

test('POST when already authenticated answers authenticated without a device code', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  await loginApproved(h);
  const res = await h.s.post(LOGIN, {});
  t.is(res.data.status, 'authenticated');
  t.is(res.data.provider, 'managed');
  t.regex(res.data.flow_id, /^flow_/);
  t.is(res.data.user_code, undefined);
  t.is(h.fixture.log.filter((l) => l === 'POST /oauth/device/code').length, 1);
  t.like((await h.s.get(LOGIN)).data, { flow_id: res.data.flow_id, status: 'authenticated' });
});

test('logout discards the credential, aborts a pending flow and removes the provider and its aliases', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  await loginApproved(h);
  const res = await h.s.post('/api/v1/auth/logout', {});
  t.deepEqual(res.data, { logged_out: true, provider: 'managed' });
  await t.throwsAsync(stat(path.join(h.s.home, 'credentials', 'managed.json')), { code: 'ENOENT' });
  const doc = parse(await readFile(path.join(h.s.home, 'config.toml'), 'utf8')) as any;
  t.is(doc.providers?.managed, undefined);
  t.deepEqual(Object.keys(doc.models ?? {}).filter((a) => a.startsWith('managed/')), []);
  const auth = (await h.s.get('/api/v1/auth')).data;
  t.is(auth.managed_provider, null);
  t.false(auth.models_ready);
  await h.s.post(LOGIN, {});
  t.deepEqual((await h.s.post('/api/v1/auth/logout', { provider: 'managed' })).data, { logged_out: true, provider: 'managed' });
  t.is((await h.s.get(LOGIN)).data.status, 'cancelled');
});

test('provider names: unknown is 40412, a configured api-key provider is 40001, bad region is 40001', async (t) => {
  const h = await startLoginHarness({ extraToml: '[providers.openai]\ntype = "chat_compat"\napi_key = "sk-1"\n' });
  t.teardown(() => h.stop());
  t.is((await h.s.post(LOGIN, { provider: 'nope' })).code, 40412);
  t.is((await h.s.get(`${LOGIN}?provider=nope`)).code, 40412);
  t.is((await h.s.req('DELETE', `${LOGIN}?provider=nope`)).body.code, 40412);
  t.is((await h.s.post('/api/v1/auth/logout', { provider: 'nope' })).code, 40412);
  t.is((await h.s.get('/api/v1/auth/status?provider=nope')).code, 40412);
  const other = await h.s.post(LOGIN, { provider: 'openai' });
  t.is(other.code, 40001);
  t.is(other.details[0].field, 'provider');
  const region = await h.s.post(LOGIN, { region: 'mars' });
  t.is(region.code, 40001);
  t.is(region.details[0].field, 'region');
});

test('an unreachable OAuth host fails the POST with 50001 and starts no flow', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  await h.fixture.close();
  const res = await h.s.post(LOGIN, {});
  t.is(res.code, 50001);
  t.regex(res.msg, /cannot start the login/);
  t.is((await h.s.get(LOGIN)).data, null);
});

test('two concurrent POSTs leave exactly one pending flow', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  const [a, b] = await Promise.all([h.s.post(LOGIN, {}), h.s.post(LOGIN, {})]);
  const current = (await h.s.get(LOGIN)).data;
  t.true([a.data.flow_id, b.data.flow_id].includes(current.flow_id));
  t.is(current.status, 'pending');
  const other = current.flow_id === a.data.flow_id ? b.data : a.data;
  h.fixture.approve(other.user_code);
  await polledTwice(h, current.user_code); // a poller of the other flow would have taken its token by now
  t.is(h.fixture.accessTokens().length, 0);
});

test('a credential that cannot be stored ends the flow denied with the reason', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  // A file where the credentials directory should be.
  await writeFile(path.join(h.s.home, 'credentials'), 'not a directory');
  const started = (await h.s.post(LOGIN, {})).data;
  h.fixture.approve(started.user_code);
  const snap = await waitResolved(h.s);
  t.is(snap.status, 'denied');
  t.regex(snap.error_message, /^login failed: /);
  t.is((await h.s.get('/api/v1/auth')).data.managed_provider, null);
});
