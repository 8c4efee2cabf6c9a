import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { startOAuthMcp, type OAuthMcp } from '../../fixtures/mcp/oauth.mjs';
import { serverStatus, startSessionServers, stdioServer, writeMcpFile } from '../helpers/mcp.ts';
import { startTestServer, tempHome, type TestServer, newSession } from '../helpers/server.ts';

const SECURE = { source: 'global', name: 'secure' };

async function setup(t: import('ava').ExecutionContext, fixtureOpts: Parameters<typeof startOAuthMcp>[0] = {}, extra: Record<string, unknown> = {}) {
  const oauth = await startOAuthMcp(fixtureOpts);
  const home = await tempHome();
  await writeMcpFile(path.join(home, 'mcp.json'), {
    secure: { transport: 'http', url: oauth.url, ...extra },
    local: stdioServer(),
    static: { transport: 'http', url: oauth.url, bearerToken: 'static-token' },
  });
  const s = await startTestServer({ home });
  t.teardown(async () => {
    await s.stop();
    await oauth.close();
  });
  return { oauth, home, s };
}

/**
 * Resolves once the daemon waits in auth:complete for `flowId`: a cancel or an abort sent before that would race the
 * request (a cancel first makes the flow unknown to it) instead of ending its wait.
 */
function completeWaiting(s: TestServer, flowId: string): Promise<void> {
  const flows = s.mcpOAuth;
  const complete = flows.complete.bind(flows);
  return new Promise((resolve) => {
    flows.complete = (id, ...rest) => {
      const waited = complete(id, ...rest);
      if (id === flowId) {
        flows.complete = complete;
        resolve();
      }
      return waited;
    };
  });
}

const statuses = async (s: TestServer, q = '') => Object.fromEntries((await s.get(`/api/v2/mcp/auth-statuses${q}`)).data.map((x: any) => [x.name, x.authStatus]));

/** The test plays the browser: follows the authorization URL to the daemon's callback. */
async function playBrowser(authorizationUrl: string): Promise<{ page: string; callback: string }> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  const callback = res.headers.get('location');
  if (!callback) throw new Error(`no redirect: ${res.status} ${await res.text()}`);
  return { page: await (await fetch(callback)).text(), callback };
}

async function signIn(s: TestServer): Promise<void> {
  const begun = await s.post('/api/v2/mcp/auth:begin', SECURE);
  if (begun.code !== 0) throw new Error(JSON.stringify(begun));
  const waiting = s.post('/api/v2/mcp/auth:complete', { flowId: begun.data.flowId });
  await playBrowser(begun.data.authorizationUrl);
  const done = await waiting;
  if (done.code !== 0) throw new Error(JSON.stringify(done));
}

test('the OAuth flow: begin (registration, PKCE), the browser comes back to the daemon, complete; tokens stored 0600 and never shown; live sessions reconnect; reset takes the authorization away', async (t) => {
  const { oauth, home, s } = await setup(t);
  t.deepEqual(await statuses(s), { secure: 'oauth-required', local: 'not-applicable', static: 'bearer-token' }, 'unpinned without credentials: probed');
  t.deepEqual(await statuses(s, '?verify=false'), { secure: 'not-applicable', local: 'not-applicable', static: 'bearer-token' }, 'offline');

  const sid = await newSession(s);
  await startSessionServers(s, sid);
  t.regex((await serverStatus(s, 'secure', ['error'])).last_error, /OAuth authorization required/);
  await serverStatus(s, 'local', ['connected']);

  const begun = await s.post('/api/v2/mcp/auth:begin', SECURE);
  t.is(begun.code, 0, JSON.stringify(begun));
  t.is(begun.data.status, 'authorization-required');
  const url = new URL(begun.data.authorizationUrl);
  t.is(url.searchParams.get('code_challenge_method'), 'S256');
  t.truthy(url.searchParams.get('state'));
  t.is(url.searchParams.get('redirect_uri'), `${s.baseUrl}/oauth/mcp/callback`);
  t.is(oauth.provider.registrations, 1, 'dynamic client registration');
  t.is([...oauth.provider.clients.values()][0]!.client_name, 'svc-code');

  const waiting = s.post('/api/v2/mcp/auth:complete', { flowId: begun.data.flowId });
  const { page } = await playBrowser(begun.data.authorizationUrl);
  t.regex(page, /Signed in to secure/);
  t.deepEqual(await waiting, { ...(await waiting), code: 0, data: null });
  t.is((await s.post('/api/v2/mcp/auth:complete', { flowId: begun.data.flowId })).code, 40001, 'a finished flow is gone');

  const dir = path.join(home, 'mcp-oauth');
  t.is((await stat(dir)).mode & 0o777, 0o700);
  const [grantFile] = await readdir(dir);
  t.is((await stat(path.join(dir, grantFile!))).mode & 0o777, 0o600);
  const accessToken = JSON.parse(await readFile(path.join(dir, grantFile!), 'utf8')).tokens.access_token as string;
  t.true(accessToken.length > 10);
  t.false((await readFile(path.join(home, 'mcp.json'), 'utf8')).includes(accessToken));

  t.is((await statuses(s, '?verify=false')).secure, 'oauth-authorized');
  t.is((await statuses(s, '?verify=true')).secure, 'oauth-authorized');
  t.like(await serverStatus(s, 'secure', ['connected']), { status: 'connected' });
  t.true((await s.get(`/api/v1/tools?session_id=${sid}`)).data.tools.some((x: any) => x.name === 'mcp__secure__echo'));
  t.deepEqual((await s.post('/api/v2/mcp/auth:begin', SECURE)).data, { status: 'already-authorized' });
  const inspected = (await s.post('/api/v2/mcp/servers:inspect', { targets: [SECURE] })).data[0];
  t.like(inspected, { serverId: 'global:secure', authStatus: 'oauth-authorized', canonicalUrl: oauth.url });
  for (const u of ['/api/v2/mcp/servers', '/api/v2/mcp/servers/secure', '/api/v2/mcp/auth-statuses', '/api/v1/mcp/servers', `/api/v1/tools?session_id=${sid}`, '/api/v1/config']) {
    t.false(JSON.stringify((await s.get(u))).includes(accessToken), u);
  }

  t.deepEqual((await s.post('/api/v2/mcp/auth:reset', SECURE)).data, null);
  t.deepEqual(await readdir(dir), []);
  t.regex((await serverStatus(s, 'secure', ['error'])).last_error, /reset/);
  t.is((await statuses(s)).secure, 'oauth-required');
  t.is((await s.post('/api/v2/mcp/auth:reset', { source: 'global', name: 'ghost' })).code, 40408);
  await signIn(s);
  t.is(oauth.provider.registrations, 2, 'a reset grant registers again');
});

test('OAuth errors: begin on stdio or a static bearer is 40001, an unknown locator 40408, an unknown flow 40001; denial, cancel and timeout fail the flow with 40929', async (t) => {
  const { s } = await setup(t, { deny: true });
  t.is((await s.post('/api/v2/mcp/auth:begin', { source: 'global', name: 'local' })).code, 40001);
  t.is((await s.post('/api/v2/mcp/auth:begin', { source: 'global', name: 'static' })).code, 40001);
  t.is((await s.post('/api/v2/mcp/auth:begin', { source: 'global', name: 'ghost' })).code, 40408);
  t.is((await s.post('/api/v2/mcp/auth:begin', { source: 'plugin', pluginId: 'p', serverName: 'x' })).code, 40408);
  t.is((await s.post('/api/v2/mcp/auth:complete', { flowId: 'flow_unknown' })).code, 40001);
  t.deepEqual((await s.post('/api/v2/mcp/auth:cancel', { flowId: 'flow_unknown' })).data, null, 'unknown flows are ignored');

  const denied = (await s.post('/api/v2/mcp/auth:begin', SECURE)).data;
  const waiting = s.post('/api/v2/mcp/auth:complete', { flowId: denied.flowId });
  t.regex((await playBrowser(denied.authorizationUrl)).page, /access_denied/);
  const failed = await waiting;
  t.is(failed.code, 40929);
  t.regex(failed.msg, /access_denied/);

  const cancelled = (await s.post('/api/v2/mcp/auth:begin', SECURE)).data;
  const inWait = completeWaiting(s, cancelled.flowId);
  const pending = s.post('/api/v2/mcp/auth:complete', { flowId: cancelled.flowId });
  await inWait;
  t.deepEqual((await s.post('/api/v2/mcp/auth:cancel', { flowId: cancelled.flowId })).data, null);
  t.is((await pending).code, 40929);

  const slow = (await s.post('/api/v2/mcp/auth:begin', SECURE)).data;
  const timedOut = await s.post('/api/v2/mcp/auth:complete', { flowId: slow.flowId, timeoutMs: 200 });
  t.is(timedOut.code, 40929);
  t.regex(timedOut.msg, /no authorization within 200 ms/);
});

test('auth:complete: closing the connection aborts the wait, not the flow', async (t) => {
  const { s } = await setup(t);
  const begun = (await s.post('/api/v2/mcp/auth:begin', SECURE)).data;
  const ac = new AbortController();
  const inWait = completeWaiting(s, begun.flowId);
  const abandoned = fetch(`${s.baseUrl}/api/v2/mcp/auth:complete`, {
    method: 'POST', signal: ac.signal, headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ flowId: begun.flowId }),
  });
  await inWait;
  ac.abort();
  await t.throwsAsync(abandoned, { any: true });
  const again = s.post('/api/v2/mcp/auth:complete', { flowId: begun.flowId });
  await playBrowser(begun.authorizationUrl);
  t.is((await again).code, 0);
  t.is((await statuses(s, '?verify=false')).secure, 'oauth-authorized');
});

test('expiry and refresh: an expired grant reports oauth-expired offline; a probe refreshes it; a refused refresh stays expired or invalidated', async (t) => {
  // The daemon judges expiry by its clock (the test's): the grant expires when the clock passes it, never because
  // the machine was slow between the sign-in and the next check (a 1 s token did on a loaded run).
  const ttlSec = 600;
  const { oauth, s } = await setup(t, { ttlSec });
  await signIn(s);
  t.is((await statuses(s, '?verify=false')).secure, 'oauth-authorized');
  s.clock.advance((ttlSec + 1) * 1000);
  t.is((await statuses(s, '?verify=false')).secure, 'oauth-expired');
  t.is((await s.get('/api/v2/mcp/auth-statuses?verify=true')).data.find((x: any) => x.name === 'secure').authStatus, 'oauth-authorized');
  t.true(oauth.provider.refreshes >= 1);

  oauth.provider.opts.refuseRefresh = true;
  s.clock.advance((ttlSec + 1) * 1000);
  t.is((await statuses(s, '?verify=false')).secure, 'oauth-expired');
  t.true(['oauth-expired', 'oauth-required'].includes((await statuses(s, '?verify=true')).secure));
  t.not((await statuses(s, '?verify=false')).secure, 'oauth-authorized');
});

test('refresh before expiry: a token inside the refresh margin is refreshed when a live connection or a probe uses it', async (t) => {
  const { oauth, s } = await setup(t, { ttlSec: 30 });
  await signIn(s);
  const sid = await newSession(s);
  await startSessionServers(s, sid);
  await serverStatus(s, 'secure', ['connected']);
  const before = oauth.provider.refreshes;
  t.is((await statuses(s, '?verify=true')).secure, 'oauth-authorized');
  t.true(oauth.provider.refreshes > before, 'refreshed while still valid');
});

test('static headers are allowed for OAuth only when the config pins auth = "oauth"; a pinned server without a grant is oauth-required offline', async (t) => {
  const { s } = await setup(t, {}, { auth: 'oauth', headers: { 'X-Tenant': 'a' } });
  t.is((await statuses(s, '?verify=false')).secure, 'oauth-required');
  const begun = await s.post('/api/v2/mcp/auth:begin', SECURE);
  t.is(begun.data.status, 'authorization-required');
  await s.post('/api/v2/mcp/auth:cancel', { flowId: begun.data.flowId });
  await s.req('PUT', '/api/v2/mcp/servers/secure', { transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Tenant': 'a' } });
  t.is((await s.post('/api/v2/mcp/auth:begin', SECURE)).code, 40001);
  const unreachable = await s.req('PUT', '/api/v2/mcp/servers/secure', { transport: 'http', url: 'http://127.0.0.1:9/mcp' });
  t.is(unreachable.body.code, 0);
  t.is((await s.post('/api/v2/mcp/auth:begin', SECURE)).code, 40929, 'discovery fails: the flow failed');
});

export type { OAuthMcp };
