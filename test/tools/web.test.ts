import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

// Manual mode: the web tools must run without an approval because they are read-only.
const MANUAL = 'default_permission_mode = "manual"';
const KEY = 'sk-web-SECRET-123';

interface Seen { path: string; headers: http.IncomingHttpHeaders; body: any }
type Answer = (seen: Seen) => { status?: number; json?: unknown; text?: string };

/** A loopback stand-in for a [services] endpoint: records each request and answers with `answer`. */
async function startService(t: ExecutionContext, answer: Answer): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const s: Seen = { path: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined };
      seen.push(s);
      const a = answer(s);
      res.writeHead(a.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(a.text ?? JSON.stringify(a.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

type Call = [name: string, args: unknown];

/** One turn in which the model makes `calls` then answers; returns the tool.result payloads in call order. */
async function runCalls(env: EngineEnv, calls: Call[]): Promise<any[]> {
  env.llm.setScript({ events: calls.map(([name, args], i) => ({ tool_call: { id: `c${i}`, name, args } })) }, scripts.helloText);
  const r = await prompt(env, 'go');
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  await turnEnded(env, 1, 30_000);
  const results = (await journal(env)).filter((e) => e.type === 'tool.result');
  return calls.map((_, i) => results.find((e) => e.payload.tool_call_id === `c${i}`)!.payload);
}

const SEARCH_RESULTS = {
  results: [
    { title: 'Node.js docs', url: 'https://nodejs.org/api/fetch.html', snippet: 'The fetch   API\nof Node' },
    { title: 'Blocked page', url: 'https://spam.example.com/x', snippet: 'nope' },
    { url: 'https://developer.mozilla.org/fetch' },
  ],
};

test('WebSearch through [services.pymodel_search]: bearer, custom headers, body; numbered results; blocked domains filtered', async (t) => {
  const svc = await startService(t, () => ({ json: SEARCH_RESULTS }));
  const env = await startEngine(t, {
    extraToml: `${MANUAL}\n[services.pymodel_search]\nbase_url = "${svc.url}/v1/"\napi_key = "${KEY}"\n[services.pymodel_search.custom_headers]\nX-Team = "core"`,
  });
  const [r] = await runCalls(env, [['WebSearch', { query: 'node fetch', blocked_domains: ['example.com'] }]]);
  t.false(r.is_error, r.content);
  t.is(svc.seen.length, 1);
  const req = svc.seen[0]!;
  t.is(req.path, '/v1/search');
  t.is(req.headers.authorization, `Bearer ${KEY}`);
  t.is(req.headers['x-team'], 'core');
  t.deepEqual(req.body, { query: 'node fetch', blocked_domains: ['example.com'], limit: 10 });
  t.is(r.content, [
    'Web search results for "node fetch" (2):',
    '',
    '1. Node.js docs\n   https://nodejs.org/api/fetch.html\n   The fetch API of Node',
    '',
    '2. https://developer.mozilla.org/fetch\n   https://developer.mozilla.org/fetch',
  ].join('\n'));
});

/** Tool names the daemon offered the model in its first request (chat-completions `tools`). */
const offered = (env: EngineEnv): string[] => (env.llm.requests[0]!.body.tools ?? []).map((x: any) => x.function.name);

test('without a search service WebSearch is not offered: absent from the model\'s tools, inactive with its reason, a call refused', async (t) => {
  const env = await startEngine(t, { extraToml: MANUAL });
  const [search] = await runCalls(env, [['WebSearch', { query: 'anything' }]]);
  t.false(offered(env).includes('WebSearch'));
  t.true(offered(env).includes('WebFetch'), 'WebFetch works without a service');
  t.true(search.is_error);
  t.regex(search.content, /^tool not available: WebSearch: no web search service is configured.*\[services\.pymodel_search\].*SVC_WEB_SEARCH_BASE_URL and SVC_WEB_SEARCH_API_KEY/);
  const { data } = await env.s.get(`/api/v1/tools?session_id=${env.sid}`);
  const listed = data.tools.find((x: any) => x.name === 'WebSearch');
  t.is(listed.active, false);
  t.regex(listed.inactive_reason, /no web search service is configured/);
  t.is(data.tools.find((x: any) => x.name === 'WebFetch').active, true);
});

test('with a search service WebSearch is offered and listed active', async (t) => {
  const svc = await startService(t, () => ({ json: { results: [] } }));
  const env = await startEngine(t, { extraToml: `${MANUAL}\n[services.pymodel_search]\nbase_url = "${svc.url}"` });
  const [search] = await runCalls(env, [['WebSearch', { query: 'anything' }]]);
  t.true(offered(env).includes('WebSearch'));
  t.false(search.is_error, search.content);
  const { data } = await env.s.get(`/api/v1/tools?session_id=${env.sid}`);
  const listed = data.tools.find((x: any) => x.name === 'WebSearch');
  t.is(listed.active, true);
  t.is(listed.inactive_reason, undefined);
});

test.serial('SVC_WEB_FETCH_BASE_URL + API_KEY enable WebFetch without a config section', async (t) => {
  const svc = await startService(t, (s) => ({ json: { url: s.body.url, title: 'Example', content_type: 'text/html', content: 'Hello page' } }));
  const ENV = { SVC_WEB_FETCH_BASE_URL: svc.url, SVC_WEB_FETCH_API_KEY: KEY };
  Object.assign(process.env, ENV);
  let env: EngineEnv;
  try {
    env = await startEngine(t, { extraToml: MANUAL });
  } finally {
    for (const k of Object.keys(ENV)) delete process.env[k];
  }
  const [r, search] = await runCalls(env, [
    ['WebFetch', { url: 'https://example.com/a', prompt: 'the greeting' }],
    ['WebSearch', { query: 'still unconfigured' }],
  ]);
  t.false(r.is_error, r.content);
  t.is(r.content, 'URL: https://example.com/a\nTitle: Example\nContent-Type: text/html\n\nHello page');
  t.is(svc.seen.length, 1);
  t.is(svc.seen[0]!.path, '/fetch');
  t.is(svc.seen[0]!.headers.authorization, `Bearer ${KEY}`);
  t.deepEqual(svc.seen[0]!.body, { url: 'https://example.com/a', prompt: 'the greeting', max_chars: 100_000 });
  t.true(search.is_error, 'only the fetch service was set');
});

test('a service 500 is a tool error with the status and an excerpt, the echoed key redacted; non-http URLs are refused', async (t) => {
  const svc = await startService(t, (s) => ({ status: 500, text: `upstream exploded for ${s.headers.authorization}` }));
  const env = await startEngine(t, { extraToml: `${MANUAL}\n[services.pymodel_fetch]\nbase_url = "${svc.url}"\napi_key = "${KEY}"` });
  const [failed, ftp, file, notUrl] = await runCalls(env, [
    ['WebFetch', { url: 'https://example.com/' }],
    ['WebFetch', { url: 'ftp://example.com/file' }],
    ['WebFetch', { url: 'file:///etc/passwd' }],
    ['WebFetch', { url: 'not a url' }],
  ]);
  t.true(failed.is_error);
  t.regex(failed.content, /HTTP 500: upstream exploded for Bearer \[redacted\]/);
  t.false(failed.content.includes(KEY));
  for (const r of [ftp, file, notUrl]) {
    t.true(r.is_error);
    t.regex(r.content, /invalid input for WebFetch: url/);
  }
  t.is(svc.seen.length, 1, 'refused URLs never reach the service');
});

test('an oauth reference sends the stored access token; long pages are cut at the stated budget', async (t) => {
  const svc = await startService(t, () => ({ json: { content: 'x'.repeat(5000) } }));
  const env = await startEngine(t, {
    extraToml: `${MANUAL}\n[read]\ndefault_max_chars = 1000\n[services.pymodel_fetch]\nbase_url = "${svc.url}"\noauth = { storage = "file", key = "webcred" }`,
  });
  await mkdir(path.join(env.s.home, 'credentials'), { recursive: true });
  await writeFile(path.join(env.s.home, 'credentials', 'webcred.json'), JSON.stringify({
    provider: 'webcred', host: 'http://127.0.0.1:9', client_id: 'c', region: 'global', access_token: 'oauth-access-TOKEN', token_type: 'Bearer', obtained_at: new Date().toISOString(),
  }));
  const [r] = await runCalls(env, [['WebFetch', { url: 'http://example.com/big' }]]);
  t.false(r.is_error, r.content);
  t.is(svc.seen[0]!.headers.authorization, 'Bearer oauth-access-TOKEN');
  t.is(svc.seen[0]!.body.max_chars, 1000);
  t.true(r.content.startsWith('URL: http://example.com/big\n\nxxx'));
  t.is(r.content.length, 1000);
  t.regex(r.content, /\[output truncated at 1000 characters\]$/);
});

test('WebSearch refuses both domain filters and a missing oauth credential is a tool error', async (t) => {
  const svc = await startService(t, () => ({ json: { results: [] } }));
  const env = await startEngine(t, {
    extraToml: `${MANUAL}\n[services.pymodel_search]\nbase_url = "${svc.url}"\noauth = { storage = "file", key = "absent" }`,
  });
  const [both, noCred] = await runCalls(env, [
    ['WebSearch', { query: 'q1', allowed_domains: ['a.com'], blocked_domains: ['b.com'] }],
    ['WebSearch', { query: 'q2' }],
  ]);
  t.true(both.is_error);
  t.regex(both.content, /either allowed_domains or blocked_domains/);
  t.true(noCred.is_error);
  t.regex(noCred.content, /OAuth credential is not usable: .*not logged in/);
  t.is(svc.seen.length, 0);
});
