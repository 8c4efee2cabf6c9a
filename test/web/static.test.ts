import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { serverFor } from '../helpers/server.ts';
import { tempDir } from '../helpers/fs.ts';
import { rawRequest } from '../helpers/raw-http.ts';

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port);

// The daemon serves the built web UI on every non-/api path (core.md Authentication 1, docs/web-ui.md):
// types, caching, CSP, SPA fallback never for /api/*, --web-title in <title>. A fixture build stands in for dist/web.

const INDEX = '<!doctype html><html><head><title>svc-code</title><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="app"></div></body></html>';

async function webRoot(): Promise<string> {
  const root = await tempDir();
  await mkdir(path.join(root, 'assets'));
  await writeFile(path.join(root, 'index.html'), INDEX);
  await writeFile(path.join(root, 'assets', 'index-abc123.js'), 'console.log("ui")');
  await writeFile(path.join(root, 'assets', 'index-abc123.css'), 'body{}');
  await writeFile(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(root, '.secret'), 'no');
  return root;
}

async function web(t: Parameters<typeof serverFor>[0], options: Record<string, unknown> = {}) {
  return serverFor(t, { options: { webRoot: await webRoot(), ...options } });
}

/** The served page less the nonce meta the daemon puts first in <head>. */
const withoutNonce = (html: string) => html.replace(/<meta property="csp-nonce" nonce="[^"]+" \/>/, '');

test('GET / is index.html without a token: no-cache, strict CSP, nosniff', async (t) => {
  const s = await web(t);
  const res = await fetch(`${s.baseUrl}/`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type')!, /^text\/html; charset=utf-8/);
  t.is(res.headers.get('cache-control'), 'no-cache');
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  const csp = res.headers.get('content-security-policy')!;
  const directives = new Map(csp.split(/;\s*/).map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));
  t.deepEqual(directives.get('default-src'), ["'none'"]);
  // Scripts: this origin only, never inline nor eval; no script-src-elem / -attr loosening it.
  t.deepEqual(directives.get('script-src'), ["'self'"]);
  t.false(directives.has('script-src-elem') || directives.has('script-src-attr'));
  t.notRegex(csp, /unsafe-eval|\*/);
  // Styles: this origin, <style> elements only with this response's nonce (xterm), style attributes (xterm's 24-bit colours).
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  t.truthy(nonce);
  t.deepEqual(directives.get('style-src'), ["'self'", `'nonce-${nonce}'`]);
  t.deepEqual(directives.get('style-src-attr'), ["'unsafe-inline'"]);
  t.is(csp.match(/unsafe-inline/g)?.length, 1, 'unsafe-inline only for style attributes');
  t.regex(csp, /frame-ancestors 'none'/);
  const html = await res.text();
  t.true(html.startsWith(`<!doctype html><html><head><meta property="csp-nonce" nonce="${nonce}" />`), html);
  t.is(withoutNonce(html), INDEX);
  // A fresh nonce per response.
  const again = await fetch(`${s.baseUrl}/`);
  t.notRegex(again.headers.get('content-security-policy')!, new RegExp(`'nonce-${nonce!.replace(/[+/=]/g, '\\$&')}'`));
  t.is(again.headers.get('etag'), null, 'no ETag on a page whose nonce changes per response');
});

test('hashed assets: their type and a year immutable; other files no-cache; ETag revalidation answers 304 (not HTML: its nonce changes)', async (t) => {
  const s = await web(t);
  const js = await fetch(`${s.baseUrl}/assets/index-abc123.js`);
  t.is(js.status, 200);
  t.regex(js.headers.get('content-type')!, /^(text|application)\/javascript/);
  t.is(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.is(await js.text(), 'console.log("ui")');
  const css = await fetch(`${s.baseUrl}/assets/index-abc123.css`);
  t.regex(css.headers.get('content-type')!, /^text\/css/);
  const svg = await fetch(`${s.baseUrl}/favicon.svg`);
  t.is(svg.headers.get('content-type'), 'image/svg+xml');
  t.is(svg.headers.get('cache-control'), 'no-cache');
  // fetch adds Cache-Control: no-cache to a conditional request; a browser's revalidation does not.
  const tag = svg.headers.get('etag')!;
  t.truthy(tag);
  const again = await rawRequest(portOf(s.baseUrl), 'GET', '/favicon.svg', { 'If-None-Match': tag });
  t.is(again.status, 304);
  t.is(again.text, '');
  const page = await rawRequest(portOf(s.baseUrl), 'GET', '/', { 'If-None-Match': tag });
  t.is(page.status, 200, 'a page is never 304: its nonce changes per response');
  const head = await fetch(`${s.baseUrl}/assets/index-abc123.js`, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(await head.text(), '');
});

test('SPA fallback: a client route gets index.html; a missing asset, a dotfile and /api/* never do', async (t) => {
  const s = await web(t);
  for (const route of ['/sessions/abc', '/settings', '/w/x/y']) {
    const res = await fetch(s.baseUrl + route);
    t.is(res.status, 200, route);
    t.is(withoutNonce(await res.text()), INDEX, route);
  }
  const missing = await fetch(`${s.baseUrl}/assets/nope-123.js`);
  t.is(missing.status, 404);
  t.is((await missing.json()).code, 40001);
  t.is((await fetch(`${s.baseUrl}/.secret`)).status, 404);
  // Sent byte for byte (fetch would resolve the dot segments itself): never a file outside the root.
  for (const escape of ['/%2e%2e/etc/passwd', '/assets/%2e%2e/%2e%2e/package.json', '/assets/..%2f..%2fpackage.json']) {
    const res = await rawRequest(portOf(s.baseUrl), 'GET', escape);
    t.is(res.status, 404, escape);
    t.is(res.json?.code, 40001, escape);
  }
  for (const api of ['/api/v1/nope', '/api/v9/sessions/x', '/API/v1/nope', '/openapi.json/x']) {
    const res = await fetch(s.baseUrl + api);
    t.is(res.status, 401, api);
    t.is((await res.json()).code, 40101, api);
  }
  const authed = await s.req('GET', '/api/v1/no-such-route');
  t.is(authed.status, 404);
  t.is(authed.body.code, 40001);
  t.regex(authed.headers.get('content-type')!, /application\/json/);
  const post = await fetch(`${s.baseUrl}/settings`, { method: 'POST' });
  t.is(post.status, 404, 'only GET and HEAD are served');
});

test('--web-title replaces the <title> of index.html, escaped, and reaches /meta', async (t) => {
  const s = await web(t, { webTitle: 'Team <box> & "co"' });
  const html = await (await fetch(`${s.baseUrl}/some/route`)).text();
  t.true(html.includes('<title>Team &#60;box&#62; &#38; &#34;co&#34;</title>'), html);
  t.is((await s.get('/api/v1/meta')).data.web_title, 'Team <box> & "co"');
});

test('no built UI: non-/api paths answer the ordinary 404 envelope', async (t) => {
  const s = await serverFor(t, { options: { webRoot: path.join(await tempDir(), 'missing') } });
  const res = await fetch(`${s.baseUrl}/`);
  t.is(res.status, 404);
  t.is((await res.json()).code, 40001);
});

test("the daemon's own non-/api routes keep their answers in every spelling: no SPA fallback under /oauth", async (t) => {
  const s = await web(t);
  for (const p of ['/oauth/mcp/callback/', '/OAUTH/mcp/callback', '/oauth/other', '/oauth']) {
    const res = await rawRequest(portOf(s.baseUrl), 'GET', p);
    t.is(res.status, 404, p);
    t.is(res.json?.code, 40001, p);
  }
  const callback = await fetch(`${s.baseUrl}/oauth/mcp/callback?state=nope&code=x`);
  t.notRegex(await callback.text(), /id="app"/, 'the route answers, not the UI');
});
