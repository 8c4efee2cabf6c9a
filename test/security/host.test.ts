import test from 'ava';
import WebSocket from 'ws';
import { accessPolicy, hostName, isAllowedHost } from '../../protocol/access/host.ts';
import { readSettings } from '../../src/app/settings.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { serverFor, startTestServer, type TestServer } from '../helpers/server.ts';

/** Opens the WebSocket with the given Host; resolves with 101 or the refusal's status. */
function upgradeStatus(s: TestServer, host: string, withToken: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: host };
    if (withToken) headers.Authorization = `Bearer ${s.token}`;
    const socket = new WebSocket(`ws://127.0.0.1:${s.server.port}/api/v1/ws`, { headers });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    socket.once('error', reject);
  });
}

test('hostName and isAllowedHost: IP literals, localhost, the bound name and allowed names', (t) => {
  t.is(hostName('Example.COM:8080'), 'example.com');
  t.is(hostName('[::1]:58627'), '::1');
  t.is(hostName('[::1]x'), undefined);
  const policy = accessPolicy({ host: '127.0.0.1', allowedHosts: ['devbox.lan'] }, readSettings({ SVC_CODE_ALLOWED_HOSTS: '.corp.example, Other.Example' }).access);
  for (const h of ['127.0.0.1:58627', '10.1.2.3', '[::1]:1', '[fe80::1]', 'localhost:58627', 'LOCALHOST', 'devbox.lan:58627', 'corp.example', 'a.b.corp.example', 'other.example', undefined]) {
    t.true(isAllowedHost(h, policy), String(h));
  }
  for (const h of ['evil.example', 'localhost.evil.example', 'devbox.lan.evil', 'xcorp.example', 'localhost.', '127.1', 'a:b:c']) {
    t.false(isAllowedHost(h, policy), h);
  }
  t.true(isAllowedHost('myhost:1', accessPolicy({ host: 'myhost' })), 'the bound host name');
  t.true(isAllowedHost('anything.example', accessPolicy({ host: '127.0.0.1', allowedHosts: ['*'] })), '* allows any name');
});

test('a foreign Host is refused on every HTTP path, with or without the token (DNS rebinding)', async (t) => {
  const s = await serverFor(t);
  const port = s.server.port;
  const auth = { Authorization: `Bearer ${s.token}` };
  for (const path of ['/api/v1/meta', '/api/v1/healthz', '/api/v1/fs:content?path=/etc/hostname', '/openapi.json', '/API/v1/sessions', '/index.html']) {
    for (const headers of [{}, auth]) {
      const res = await rawRequest(port, 'GET', path, { ...headers, Host: `rebind.evil.example:${port}` });
      t.is(res.status, 403, path);
      t.is(res.json.code, 40101, path);
      t.is(res.json.details.host, 'rebind.evil.example');
      t.regex(res.json.msg, /--allowed-host rebind\.evil\.example/);
    }
  }
  const shutdown = await rawRequest(port, 'POST', '/api/v1/shutdown', { ...auth, Host: `evil.example:${port}` });
  t.is(shutdown.status, 403);
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
    const res = await rawRequest(port, 'GET', '/api/v1/meta', { ...auth, Host: host });
    t.is(res.status, 200, host);
    t.is(res.json.code, 0, host);
  }
});

test('a foreign Host is refused at the WebSocket upgrade, with or without the token', async (t) => {
  const s = await serverFor(t);
  const port = s.server.port;
  t.is(await upgradeStatus(s, `evil.example:${port}`, true), 403);
  t.is(await upgradeStatus(s, `evil.example:${port}`, false), 403);
  t.is(await upgradeStatus(s, `localhost:${port}`, true), 101);
  t.is(await upgradeStatus(s, `127.0.0.1:${port}`, true), 101);
});

test('names allowed with --allowed-host are served, and their pages are same-origin', async (t) => {
  const s = await startTestServer({ options: { allowedHosts: ['devbox.lan'] } });
  t.teardown(() => s.stop());
  const port = s.server.port;
  const auth = { Authorization: `Bearer ${s.token}` };
  const host = `devbox.lan:${port}`;
  const res = await rawRequest(port, 'GET', '/api/v1/meta', { ...auth, Host: host, Origin: `http://${host}` });
  t.is(res.status, 200);
  t.is(res.json.code, 0);
  t.is(await upgradeStatus(s, host, true), 101);
  const other = await rawRequest(port, 'GET', '/api/v1/meta', { ...auth, Host: `evil.example:${port}` });
  t.is(other.status, 403);
});
