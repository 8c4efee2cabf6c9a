import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

// WebFetch without a [services.pymodel_fetch] endpoint: the daemon fetches the page itself (docs/services.md).
// The pages are served on loopback, which the default policy refuses: tests that read them allow 127.0.0.1 only.
const MANUAL = 'default_permission_mode = "manual"';
const ALLOW_LOOPBACK = '[services.pymodel_fetch]\nallowed_private_networks = ["127.0.0.1"]';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
interface Pages { url: string; port: number; seen: string[] }

/** A page server on `host`: each path's handler answers; every request path is recorded. */
async function servePages(t: ExecutionContext, routes: Record<string, Handler>, host = '127.0.0.1'): Promise<Pages> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    const h = routes[(req.url ?? '').split('?')[0]!];
    if (h) return h(req, res);
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('no such page');
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  t.teardown(() => new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  }));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${port}`, port, seen };
}

const send = (type: string, body: string | Buffer, status = 200, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { 'Content-Type': type, ...headers });
  res.end(body);
};
const redirect = (location: string, status = 302): Handler => (_req, res) => {
  res.writeHead(status, { Location: location });
  res.end();
};

/** One turn in which the model makes `calls`; returns the tool.result payloads in call order. */
async function runCalls(env: EngineEnv, calls: Array<[string, unknown]>): Promise<any[]> {
  env.llm.setScript({ events: calls.map(([name, args], i) => ({ tool_call: { id: `c${i}`, name, args } })) }, scripts.helloText);
  const r = await prompt(env, 'go');
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  await turnEnded(env, 1, 120_000);
  const results = (await journal(env)).filter((e) => e.type === 'tool.result');
  return calls.map((_, i) => results.find((e) => e.payload.tool_call_id === `c${i}`)!.payload);
}

const fetchCall = (url: string): [string, unknown] => ['WebFetch', { url }];

const ARTICLE = `<!doctype html><html><head><title>Guide to Widgets</title></head><body>
<nav><a href="/">Home</a> | <a href="/shop">Shop</a></nav>
<article><h1>Guide to Widgets</h1>
<p>Widgets are small parts. Read the <a href="/docs/install">install notes</a> or the <a href="https://other.example/spec">spec</a>.</p>
${'<p>Every widget has a body, a lid and a spring; the spring keeps the lid closed until the widget is pressed. </p>'.repeat(8)}
<h2>Assembly</h2><ul><li>Fit the spring</li><li>Close the lid</li></ul>
<script>window.tracking = "SCRIPT-NOISE";</script>
</article><footer>Copyright widgets</footer></body></html>`;

test('HTML becomes Markdown (title, headings, absolute links); text and JSON pass through; charsets are honoured; other types are a note', async (t) => {
  const pages = await servePages(t, {
    '/guide': send('text/html; charset=utf-8', ARTICLE),
    '/notes.txt': send('text/plain', 'plain notes\nline two'),
    '/data.json': send('application/json', '{"ok":true,"items":[1,2]}'),
    '/latin1': send('text/plain; charset=iso-8859-1', Buffer.from('caf\xe9 cr\xe8me', 'latin1')),
    '/cyrillic': send('text/html', Buffer.concat([
      Buffer.from('<html><head><meta charset="windows-1251"><title>T</title></head><body><p>'),
      Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), // "Привет" in windows-1251
      Buffer.from('</p></body></html>'),
    ])),
    '/logo.png': send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0])),
  });
  const env = await startEngine(t, { extraToml: `${MANUAL}\n${ALLOW_LOOPBACK}` });
  const [guide, txt, json, latin, cyr, png] = await runCalls(env, [
    fetchCall(`${pages.url}/guide`), fetchCall(`${pages.url}/notes.txt`), fetchCall(`${pages.url}/data.json`),
    fetchCall(`${pages.url}/latin1`), fetchCall(`${pages.url}/cyrillic`), fetchCall(`${pages.url}/logo.png`),
  ]);
  t.false(guide.is_error, guide.content);
  t.true(guide.content.startsWith(`URL: ${pages.url}/guide\nTitle: Guide to Widgets\nContent-Type: text/html; charset=utf-8\n\n`), guide.content);
  t.regex(guide.content, /^## Assembly$/m);
  t.regex(guide.content, /^-\s+Fit the spring$/m);
  t.true(guide.content.includes(`[install notes](${pages.url}/docs/install)`), 'relative links are made absolute');
  t.true(guide.content.includes('[spec](https://other.example/spec)'));
  t.false(guide.content.includes('SCRIPT-NOISE'), 'scripts are not text');
  t.false(guide.content.includes('<p>'), 'no markup left');

  t.false(txt.is_error, txt.content);
  t.is(txt.content, `URL: ${pages.url}/notes.txt\nContent-Type: text/plain\n\nplain notes\nline two`);
  t.is(json.content, `URL: ${pages.url}/data.json\nContent-Type: application/json\n\n{"ok":true,"items":[1,2]}`);
  t.true(latin.content.endsWith('\n\ncafé crème'), latin.content);
  t.false(cyr.is_error, cyr.content);
  t.true(cyr.content.includes('Привет'), cyr.content);
  t.false(png.is_error, png.content);
  t.regex(png.content, /\[image\/png content, 8 bytes: WebFetch shows HTML, text and JSON only\]$/);
});

test('by default loopback, private, link-local and CGNAT addresses are refused, by name too, before any request', async (t) => {
  const pages = await servePages(t, { '/': send('text/plain', 'secret') });
  const env = await startEngine(t, { extraToml: MANUAL });
  const targets = [
    `http://127.0.0.1:${pages.port}/`, `http://localhost:${pages.port}/`, `http://[::1]:${pages.port}/`,
    `http://[::ffff:127.0.0.1]:${pages.port}/`, 'http://10.1.2.3/', 'http://192.168.0.1/', 'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/', 'http://0.0.0.0/', 'http://[fe80::1]/', 'http://[fd00::1]/',
  ];
  const results = await runCalls(env, targets.map(fetchCall));
  for (const [i, r] of results.entries()) {
    t.true(r.is_error, targets[i]);
    t.regex(r.content, /non-public address: WebFetch refuses it unless \[services\.pymodel_fetch\] allowed_private_networks lists it/, targets[i]);
  }
  t.regex(results[1].content, /^localhost \(127\.0\.0\.1\)/, 'the name is refused for the address it resolves to');
  t.deepEqual(pages.seen, [], 'no request reached the page server');
});

test('each redirect target is checked again: an allowed page cannot redirect to another private address or scheme', async (t) => {
  // A second loopback address outside the allowed 127.0.0.1: it must never be asked.
  const other = await servePages(t, { '/secret': send('text/plain', 'other secret') }, '127.0.0.2');
  const pages = await servePages(t, {
    '/to-other': redirect(`${other.url}/secret`),
    '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/', 301),
    '/to-v6': redirect('http://[::1]/'),
    '/to-file': redirect('file:///etc/passwd'),
    '/to-page': redirect('/page', 307),
    '/page': send('text/plain', 'landed'),
  });
  const env = await startEngine(t, { extraToml: `${MANUAL}\n${ALLOW_LOOPBACK}` });
  const [toOther, toMeta, toV6, toFile, ok] = await runCalls(env, ['/to-other', '/to-metadata', '/to-v6', '/to-file', '/to-page'].map((p) => fetchCall(pages.url + p)));
  for (const r of [toOther, toMeta, toV6]) {
    t.true(r.is_error);
    t.regex(r.content, /non-public address/);
  }
  t.true(toFile.is_error);
  t.regex(toFile.content, /only http and https URLs are fetched, not file:/);
  t.deepEqual(other.seen, [], 'the other private address was never asked');
  t.false(ok.is_error, ok.content);
  t.is(ok.content, `URL: ${pages.url}/page\nContent-Type: text/plain\nNote: Redirected from ${pages.url}/to-page\n\nlanded`);
});

test('redirects are bounded: 5 are followed, a 6th is an error', async (t) => {
  const routes: Record<string, ReturnType<typeof redirect>> = { '/end': send('text/plain', 'the end') };
  for (let i = 0; i < 5; i++) routes[`/hop${i}`] = redirect(`/hop${i + 1}`);
  routes['/hop5'] = redirect('/end');
  const pages = await servePages(t, routes);
  const env = await startEngine(t, { extraToml: `${MANUAL}\n${ALLOW_LOOPBACK}` });
  const [five, six] = await runCalls(env, [fetchCall(`${pages.url}/hop1`), fetchCall(`${pages.url}/hop0`)]);
  t.false(five.is_error, five.content);
  t.true(five.content.endsWith('\n\nthe end'));
  t.true(six.is_error);
  t.regex(six.content, /redirected more than 5 times \(last to \/end\)/);
  t.false(pages.seen.slice(6).includes('/end'), 'the chain past the bound is not followed');
});

test('the body is read up to the size limit only: an endless page ends with a note, the output within the Read budget', async (t) => {
  let closed = false;
  const pages = await servePages(t, {
    '/endless': (req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const line = Buffer.from('all work and no play makes a long page\n'.repeat(400));
      const pump = () => { while (!res.destroyed && res.write(line)); };
      res.on('drain', pump);
      res.on('close', () => (closed = true));
      req.socket.on('error', () => undefined); // the daemon hangs up mid-body: expected here
      pump();
    },
  });
  const env = await startEngine(t, { extraToml: `${MANUAL}\n[read]\ndefault_max_chars = 3000\n${ALLOW_LOOPBACK}` });
  const [r] = await runCalls(env, [fetchCall(`${pages.url}/endless`)]);
  t.false(r.is_error, r.content.slice(0, 300));
  t.true(r.content.startsWith(`URL: ${pages.url}/endless\nContent-Type: text/plain\nNote: Only the first 2048 KiB of the page were read (the WebFetch size limit)\n\nall work`));
  t.is(r.content.length, 3000);
  t.regex(r.content, /\[output truncated at 3000 characters\]$/);
  t.true(closed, 'the connection was dropped');
});

test.serial('a server that never answers, or stops mid-body, ends at the fetch deadline (SVC_CODE_WEB_FETCH_TIMEOUT_MS)', async (t) => {
  const pages = await servePages(t, {
    '/silent': () => undefined,
    '/stalls': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('a start and then nothing');
    },
  });
  process.env.SVC_CODE_WEB_FETCH_TIMEOUT_MS = '1500';
  let env: EngineEnv;
  try {
    env = await startEngine(t, { extraToml: `${MANUAL}\n${ALLOW_LOOPBACK}` });
  } finally {
    delete process.env.SVC_CODE_WEB_FETCH_TIMEOUT_MS;
  }
  const [silent, stalls] = await runCalls(env, [fetchCall(`${pages.url}/silent`), fetchCall(`${pages.url}/stalls`)]);
  t.true(silent.is_error);
  t.is(silent.content, `fetching ${pages.url}/silent did not finish within 1.5 s`);
  t.true(stalls.is_error);
  t.is(stalls.content, `fetching ${pages.url}/stalls did not finish within 1.5 s`);
});

test('a non-2xx answer is a tool error with the status and the start of the page', async (t) => {
  const pages = await servePages(t, { '/gone': send('text/plain', 'this page moved away', 410) });
  const env = await startEngine(t, { extraToml: `${MANUAL}\n${ALLOW_LOOPBACK}` });
  const [gone, missing] = await runCalls(env, [fetchCall(`${pages.url}/gone`), fetchCall(`${pages.url}/nothing-here`)]);
  t.true(gone.is_error);
  t.is(gone.content, `${pages.url}/gone answered HTTP 410 Gone:\n\nthis page moved away`);
  t.true(missing.is_error);
  t.regex(missing.content, /answered HTTP 404 Not Found:\n\nno such page$/);
});

test('allowed_private_networks: shown in GET /config, a bad entry warned about and dropped', async (t) => {
  const env = await startEngine(t, { extraToml: `${MANUAL}\n[services.pymodel_fetch]\nallowed_private_networks = ["127.0.0.1", "10.0.0.0/8", "intranet"]` });
  const c = (await env.s.get('/api/v1/config')).data;
  t.deepEqual(c.services.pymodel_fetch, { has_api_key: false, has_oauth: false, allowed_private_networks: ['127.0.0.1', '10.0.0.0/8'] });
  t.true(env.s.config.warnings().some((w: string) => w.includes('allowed_private_networks entry "intranet" is not an IP address or CIDR range')));
  const patched = await env.s.post('/api/v1/config', { services: { pymodel_fetch: { allowed_private_networks: ['192.168.0.0/16'] } } });
  t.is(patched.code, 0, JSON.stringify(patched));
  t.deepEqual(env.s.config.current().services.pymodel_fetch?.allowed_private_networks, ['192.168.0.0/16']);
});
