import test from 'ava';
import type { RouteDef } from '../../src/http/route.ts';
import { canonicalPath, isApiPath } from '../../src/http/request-path.ts';
import { rawRequest, type RawResponse } from '../helpers/raw-http.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

/** A route's spec path with its slots filled, as a client would send it. */
function wirePath(def: RouteDef): string {
  return def.path.replace(/\{\*[a-z_]+\}/gi, 'a/b').replace(/\{[a-z_]+\}/gi, 'x1');
}

function splitFirst(p: string): [string, string] {
  const slash = p.indexOf('/', 1);
  return slash < 0 ? [p.slice(1), ''] : [p.slice(1, slash), p.slice(slash)];
}

function encodeFirstLetter(seg: string): string {
  const i = seg.search(/[a-z]/i);
  return i < 0 ? seg : `${seg.slice(0, i)}%${seg.charCodeAt(i).toString(16)}${seg.slice(i + 1)}`;
}

/** Every other spelling of a path that a case-, escape- or dot-lenient server could take for it. */
const SPELLINGS: Record<string, (p: string) => string> = {
  'upper first segment': (p) => { const [a, rest] = splitFirst(p); return `/${a.toUpperCase()}${rest}`; },
  'capitalised first segment': (p) => { const [a, rest] = splitFirst(p); return `/${a[0].toUpperCase()}${a.slice(1)}${rest}`; },
  'upper first two segments': (p) => p.replace(/^\/api\/v(\d)\//, '/API/V$1/').replace(/^\/(openapi|asyncapi)\.json$/, (m) => m.toUpperCase()),
  'escaped letter in the first segment': (p) => { const [a, rest] = splitFirst(p); return `/${encodeFirstLetter(a)}${rest}`; },
  'escaped letter in the last segment': (p) => { const i = p.lastIndexOf('/'); return p.slice(0, i + 1) + encodeFirstLetter(p.slice(i + 1)); },
  'leading //': (p) => `/${p}`,
  'inner //': (p) => { const [a, rest] = splitFirst(p); return `/${a}/${rest || '/'}`; },
  'dot segment': (p) => `/.${p}`,
  'inner dot segment': (p) => { const [a, rest] = splitFirst(p); return `/${a}/.${rest}`; },
  'dot-dot segment': (p) => `/x/..${p}`,
  'trailing /': (p) => `${p}/`,
  ';x on the first segment': (p) => { const [a, rest] = splitFirst(p); return `/${a};x${rest}`; },
  ';x at the end': (p) => `${p};x`,
  '%2F for the second slash': (p) => { const [a, rest] = splitFirst(p); return rest ? `/${a}%2F${rest.slice(1)}` : `${p}%2F`; },
  '%2f for the second slash': (p) => { const [a, rest] = splitFirst(p); return rest ? `/${a}%2f${rest.slice(1)}` : `${p}%2f`; },
};

const NO_TOKEN = {};
const WRONG_TOKEN = { Authorization: 'Bearer wrong-token' };

/** Runs requests a few at a time (thousands of them; one by one is slow, all at once floods the listener). */
async function pooled<T>(jobs: (() => Promise<T>)[], width = 8): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  }));
  return out;
}

function served(res: RawResponse): boolean {
  return res.status < 300 || res.json?.code === 0;
}

async function routesOf(s: TestServer): Promise<RouteDef[]> {
  return s.routes;
}

test('canonicalPath decodes unreserved escapes once and refuses empty and dot segments', (t) => {
  t.deepEqual(canonicalPath('/%61pi/v1/%73essions'), { ok: true, path: '/api/v1/sessions' });
  t.deepEqual(canonicalPath('/api/v1/models/a%2fb'), { ok: true, path: '/api/v1/models/a%2Fb' }, 'reserved escapes stay escaped');
  t.deepEqual(canonicalPath('/api/v1/sessions/'), { ok: true, path: '/api/v1/sessions/' });
  t.false(canonicalPath('//api/v1/sessions').ok);
  t.false(canonicalPath('/api/%2e/v1').ok, 'an escaped dot is still a dot segment');
  t.false(canonicalPath('/api/v1/../v1/sessions').ok);
  t.false(canonicalPath('/api/v1/%zz').ok);
  t.false(canonicalPath('http://evil/api/v1/sessions').ok);
  for (const p of ['/API/v1', '/Api', '/api;x/v1', '/OPENAPI.JSON', '/asyncapi.json;x']) t.true(isApiPath(p), p);
  for (const p of ['/', '/index.html', '/apix/v1', '/assets/api']) t.false(isApiPath(p), p);
});

test('every route, under every spelling, without a token or with a wrong one, is never served', async (t) => {
  const s = await serverFor(t);
  const routes = await routesOf(s);
  t.true(routes.length > 100, `the route table has ${routes.length} routes`);
  const port = s.server.port;
  const jobs: (() => Promise<void>)[] = [];
  const failures: string[] = [];
  const check = (method: string, path: string, headers: Record<string, string>, label: string, openPath?: string) => async () => {
    const res = await rawRequest(port, method, path, headers);
    // An open route (healthz) may answer a spelling that means exactly its own path.
    const same = canonicalPath(path);
    if (openPath !== undefined && same.ok && same.path === openPath && res.status === 200) return;
    const ok = !served(res) && (res.status === 401 || res.status === 404) && (method === 'HEAD' || [40101, 40001].includes(res.json?.code));
    if (!ok) failures.push(`${label}: ${method} ${path} -> ${res.status} ${res.text.slice(0, 120)}`);
  };
  for (const def of routes) {
    const canonical = wirePath(def);
    const methods = def.method === 'GET' ? ['GET', 'HEAD'] : [def.method];
    for (const method of methods) {
      for (const [name, spell] of Object.entries(SPELLINGS)) {
        const path = spell(canonical);
        const open = def.auth === false ? canonical : undefined;
        jobs.push(check(method, path, NO_TOKEN, `${name}, no token`, open), check(method, path, WRONG_TOKEN, `${name}, wrong token`, open));
      }
      if (def.auth === false) continue;
      // The canonical spelling itself: refused with 401 exactly.
      jobs.push(async () => {
        for (const headers of [NO_TOKEN, WRONG_TOKEN]) {
          const res = await rawRequest(port, method, canonical, headers);
          if (res.status !== 401) failures.push(`canonical: ${method} ${canonical} -> ${res.status}`);
        }
      });
    }
  }
  await pooled(jobs);
  t.deepEqual(failures.slice(0, 20), [], `${failures.length} of ${jobs.length * 2} requests were served or answered oddly`);
  t.true(jobs.length > 3000, `${jobs.length} request pairs`);
  // Shutdown was among them, under every spelling: the daemon is still up.
  const health = await rawRequest(port, 'GET', '/api/v1/healthz');
  t.is(health.status, 200);
});

test('POST shutdown under every spelling without a token leaves the daemon running', async (t) => {
  const s = await serverFor(t);
  const port = s.server.port;
  for (const [name, spell] of Object.entries(SPELLINGS)) {
    for (const headers of [NO_TOKEN, WRONG_TOKEN]) {
      const res = await rawRequest(port, 'POST', spell('/api/v1/shutdown'), headers);
      t.true(res.status === 401 || res.status === 404, `${name}: ${res.status}`);
    }
  }
  const health = await rawRequest(port, 'GET', '/api/v1/healthz');
  t.is(health.status, 200);
  t.is(health.json.code, 0);
  const meta = await s.req('GET', '/api/v1/meta');
  t.is(meta.body.code, 0, 'and it still serves with the token');
});

test('with the token: escaped unreserved letters route as the canonical path; other spellings are 404', async (t) => {
  const s = await serverFor(t);
  const port = s.server.port;
  const auth = { Authorization: `Bearer ${s.token}` };
  const escaped = await rawRequest(port, 'GET', '/%61pi/v1/m%65ta', auth);
  t.is(escaped.status, 200);
  t.is(escaped.json.code, 0);
  for (const path of ['/API/v1/meta', '/api/V1/meta', '/api/v1/meta/', '//api/v1/meta', '/api/./v1/meta', '/api/v1/meta;x', '/api%2Fv1/meta']) {
    const res = await rawRequest(port, 'GET', path, auth);
    t.is(res.status, 404, path);
    t.is(res.json.code, 40001, path);
    t.truthy(res.json.details, path);
  }
  // Healthz is exempt only in its routed spelling.
  t.is((await rawRequest(port, 'GET', '/api/v1/healthz')).status, 200);
  t.is((await rawRequest(port, 'GET', '/API/v1/healthz')).status, 401);
});
