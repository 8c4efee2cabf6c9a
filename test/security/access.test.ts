import http from 'node:http';
import test from 'ava';
import { serverFor, startTestServer } from '../helpers/server.ts';

test('bearer token guards /api/* and the served specs; healthz and OPTIONS are exempt', async (t) => {
  const s = await serverFor(t);
  for (const url of ['/api/v1/meta', '/api/v1/sessions', '/openapi.json', '/asyncapi.json', '/api/v1/nope']) {
    const res = await fetch(s.baseUrl + url);
    t.is(res.status, 401, url);
    const body = await res.json();
    t.is(body.code, 40101, url);
    t.regex(body.request_id, /^[0-9A-Z]{26}$/);
  }
  const wrong = await fetch(`${s.baseUrl}/api/v1/meta`, { headers: { Authorization: 'Bearer nope' } });
  t.is(wrong.status, 401);
  t.is((await fetch(`${s.baseUrl}/api/v1/healthz`)).status, 200);
  const preflight = await fetch(`${s.baseUrl}/api/v1/sessions`, { method: 'OPTIONS', headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' } });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  const spec = await s.req('GET', '/openapi.json');
  t.is(spec.status, 200);
  t.is((spec.body as any).openapi, '3.1.0');
  t.truthy((spec.body as any).paths['/api/v1/sessions/{session_id}:fork']);
});

test('requests from a foreign web origin are refused; loopback and app origins are allowed', async (t) => {
  const s = await serverFor(t);
  const evil = await s.req('GET', '/api/v1/meta', undefined, { Origin: 'https://evil.example' });
  t.is(evil.status, 403);
  t.is(evil.body.code, 40101);
  const nullOrigin = await s.req('GET', '/api/v1/meta', undefined, { Origin: 'null' });
  t.is(nullOrigin.status, 403);
  // DNS rebinding: a foreign name resolving to this machine sends a matching Host; still refused.
  const port = new URL(s.baseUrl).port;
  const viaHost = (host: string) => new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/api/v1/meta', headers: { Host: host, Origin: `http://${host}`, Authorization: `Bearer ${s.token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
  t.is(await viaHost(`evil.example:${port}`), 403);
  t.is(await viaHost(`127.0.0.1:${port}`), 200, 'the same request by IP address passes');
  for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:9000', 'vscode-webview://abc']) {
    const ok = await s.req('GET', '/api/v1/meta', undefined, { Origin: origin });
    t.is(ok.status, 200, origin);
    t.is(ok.body.code, 0, origin);
  }
});

test('dangerous-bypass-auth skips the token and says so in meta', async (t) => {
  const s = await startTestServer({ options: { dangerousBypassAuth: true } });
  t.teardown(() => s.stop());
  const res = await fetch(`${s.baseUrl}/api/v1/meta`);
  const body = await res.json();
  t.is(body.code, 0);
  t.true(body.data.dangerous_bypass_auth);
});

test('non-loopback bind: 10 failures in 60 s ban the source (429, 42901); shutdown is not mounted', async (t) => {
  const s = await startTestServer({ options: { host: '0.0.0.0' } });
  t.teardown(() => s.stop());
  const url = `http://127.0.0.1:${s.server.port}`;
  const auth = { Authorization: `Bearer ${s.token}` };
  t.is((await (await fetch(`${url}/api/v1/meta`, { headers: auth })).json()).code, 0);
  const shutdown = await fetch(`${url}/api/v1/shutdown`, { method: 'POST', headers: auth });
  t.is(shutdown.status, 404);
  for (let i = 0; i < 10; i++) {
    const r = await fetch(`${url}/api/v1/meta`, { headers: { Authorization: 'Bearer wrong' } });
    t.is(r.status, 401);
  }
  const banned = await fetch(`${url}/api/v1/meta`, { headers: auth });
  t.is(banned.status, 429);
  t.is((await banned.json()).code, 42901);
});

test('loopback bind: failures never ban; shutdown replies then stops the server', async (t) => {
  const s = await startTestServer();
  for (let i = 0; i < 12; i++) await fetch(`${s.baseUrl}/api/v1/meta`, { headers: { Authorization: 'Bearer wrong' } });
  t.is((await s.get('/api/v1/meta')).code, 0);
  const r = await s.post('/api/v1/shutdown');
  t.deepEqual(r.data, { ok: true });
  await s.server.closed;
  await t.throwsAsync(fetch(`${s.baseUrl}/api/v1/healthz`));
  await s.stop();
});
