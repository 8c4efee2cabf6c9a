import test from 'ava';
import { loginApproved, startLoginHarness, waitResolved } from '../helpers/login.ts';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';

// spec/clients.md E15 / D1: web clients call the login, account and refresh routes by other names. Each alias is
// called over HTTP and must answer what its canonical route answers, in each state of the login, and be guarded
// by the token like it (the served-spec listing alone would pass with an alias that answers something else).

/** The envelope without its per-request id. */
async function call(s: TestServer, method: string, url: string, body?: unknown) {
  const r = await s.req(method, url, body);
  const { request_id: _, ...rest } = r.body as any;
  return { status: r.status, ...rest };
}

/** Asserts an alias and its canonical route answer the same (status, code, data) for the same request. */
async function same(t: any, s: TestServer, method: string, alias: string, canonical: string, body?: unknown, step = '') {
  const a = await call(s, method, alias, body);
  const c = await call(s, method, canonical, body);
  t.deepEqual(a, c, `${method} ${alias} = ${canonical} ${step}`);
  return a;
}

test('the /oauth/* aliases answer like /auth/* in every login state', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  const { s } = h;
  // Logged out: no flow, usage and profile report "not logged in" in band.
  t.is((await same(t, s, 'GET', '/api/v1/oauth/login', '/api/v1/auth/login', undefined, 'no flow')).data, null);
  t.like((await same(t, s, 'GET', '/api/v1/oauth/usage', '/api/v1/auth/status', undefined, 'logged out')).data, { kind: 'error' });
  await same(t, s, 'GET', '/api/v1/oauth/userinfo', '/api/v1/auth/status?view=profile', undefined, 'logged out');
  await same(t, s, 'GET', '/api/v1/oauth/usage?provider=nope', '/api/v1/auth/status?provider=nope', undefined, 'unknown provider');
  t.is((await call(s, 'GET', '/api/v1/oauth/usage?provider=nope')).code, 40412);

  // POST /oauth/login starts the flow GET /auth/login then shows; DELETE /oauth/login cancels it.
  const started = await call(s, 'POST', '/api/v1/oauth/login', {});
  t.is(started.code, 0);
  t.like(started.data, { status: 'pending', provider: 'managed' });
  t.deepEqual((await same(t, s, 'GET', '/api/v1/oauth/login', '/api/v1/auth/login', undefined, 'pending')).data.flow_id, started.data.flow_id);
  t.deepEqual((await call(s, 'DELETE', '/api/v1/oauth/login')).data, { cancelled: true, status: 'cancelled' });
  t.is((await s.get('/api/v1/auth/login')).data.status, 'cancelled');
  await same(t, s, 'DELETE', '/api/v1/oauth/login', '/api/v1/auth/login', undefined, 'after a cancel');

  // Logged in: usage and profile are the same live reads.
  const snap = await loginApproved(h);
  t.is(snap.status, 'authenticated');
  t.is((await same(t, s, 'GET', '/api/v1/oauth/login', '/api/v1/auth/login', undefined, 'authenticated')).data.status, 'authenticated');
  const usage = await same(t, s, 'GET', '/api/v1/oauth/usage?provider=managed', '/api/v1/auth/status?provider=managed', undefined, 'logged in');
  t.is(usage.data.kind, 'ok');
  t.truthy(usage.data.summary);
  const profile = await same(t, s, 'GET', '/api/v1/oauth/userinfo', '/api/v1/auth/status?view=profile', undefined, 'logged in');
  t.like(profile.data, { kind: 'ok', userInfo: { userId: 'u_1' } });

  // POST /oauth/logout logs out as /auth/logout does.
  t.deepEqual((await call(s, 'POST', '/api/v1/oauth/logout', {})).data, { logged_out: true, provider: 'managed' });
  t.is((await s.get('/api/v1/auth')).data.providers_count, 0, 'the managed provider is removed');
  await same(t, s, 'POST', '/api/v1/oauth/logout', '/api/v1/auth/logout', { provider: 'managed' }, 'logged out');
  await same(t, s, 'POST', '/api/v1/oauth/logout', '/api/v1/auth/logout', { provider: 'nope' }, 'unknown provider');
  t.like((await s.get('/api/v1/oauth/usage')).data, { kind: 'error', message: 'not logged in' });
  // A second login through the alias works again after the logout (the flow is the canonical one).
  const again = await call(s, 'POST', '/api/v1/oauth/login', {});
  h.fixture.approve(again.data.user_code);
  t.is((await waitResolved(s)).status, 'authenticated');
});

test('providers:refresh_oauth answers like providers:refresh_providers', async (t) => {
  const h = await startLoginHarness();
  t.teardown(() => h.stop());
  await loginApproved(h);
  // A provider that is not OAuth-backed: in a refresh of every provider, left out of this one.
  t.is((await h.s.req('POST', '/api/v1/providers', {
    id: 'acme', type: 'chat_compat', base_url: 'https://llm.example/v1', api_key: 'sk-x', models: [{ model: 'fast-1', max_context_size: 128000 }],
  })).status, 201);
  const a = await same(t, h.s, 'POST', '/api/v1/providers:refresh_oauth', '/api/v1/providers:refresh_providers', {});
  t.false(JSON.stringify(a.data).includes('acme'), 'OAuth-backed providers only');
  t.is(a.code, 0);
  t.deepEqual(Object.keys(a.data).sort(), ['changed', 'failed', 'unchanged']);
  t.true([...a.data.changed, ...a.data.unchanged, ...a.data.failed].length > 0, 'the managed provider is in the report');
});

test('every alias is guarded by the token like its canonical route', async (t) => {
  const s = await serverFor(t);
  const pairs: Array<[string, string, string]> = [
    ['GET', '/api/v1/oauth/login', '/api/v1/auth/login'],
    ['POST', '/api/v1/oauth/login', '/api/v1/auth/login'],
    ['DELETE', '/api/v1/oauth/login', '/api/v1/auth/login'],
    ['POST', '/api/v1/oauth/logout', '/api/v1/auth/logout'],
    ['GET', '/api/v1/oauth/usage', '/api/v1/auth/status'],
    ['GET', '/api/v1/oauth/userinfo', '/api/v1/auth/status'],
    ['POST', '/api/v1/providers:refresh_oauth', '/api/v1/providers:refresh_providers'],
  ];
  for (const [method, alias, canonical] of pairs) {
    for (const auth of [undefined, 'Bearer wrong-token']) {
      const send = (url: string) => fetch(s.baseUrl + url, {
        method, headers: { ...(auth ? { Authorization: auth } : {}), 'Content-Type': 'application/json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
      });
      const [a, c] = await Promise.all([send(alias), send(canonical)]);
      t.is(a.status, 401, `${method} ${alias} ${auth ?? 'no token'}`);
      t.is(a.status, c.status);
      t.is((await a.json()).code, (await c.json()).code);
    }
  }
});

test('GET /status names dynamic workflow mode swarm_mode too, and tower_mode (false unless set)', async (t) => {
  const s = await serverFor(t);
  const sid = await newSession(s);
  const status = async () => (await s.get(`/api/v1/sessions/${sid}/status`)).data;
  t.like(await status(), { dynamic_workflow_mode: false, swarm_mode: false, tower_mode: false });
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { dynamic_workflow_mode: true } })).code, 0);
  t.like(await status(), { dynamic_workflow_mode: true, swarm_mode: true, tower_mode: false });
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { dynamic_workflow_mode: false } })).code, 0);
  t.like(await status(), { dynamic_workflow_mode: false, swarm_mode: false });
});
