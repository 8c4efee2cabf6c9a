import test, { type ExecutionContext } from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import { serverFor, type TestServer } from '../helpers/server.ts';

const REG_KEY = 'reg-SECRET-key-777';

/** A loopback registry: our directory item shape behind a Bearer check; `routes` maps a path to [status, body text]. */
const routes = new Map<string, [number, string]>();
const reg: Server = createServer((req, res) => {
  if (req.url === '/private.json' && req.headers.authorization !== `Bearer ${REG_KEY}`) {
    res.statusCode = 401;
    return res.end('{}');
  }
  const [status, text] = routes.get(req.url ?? '') ?? [404, ''];
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(text);
});
await new Promise<void>((resolve) => reg.listen(0, '127.0.0.1', resolve));
const BASE = `http://127.0.0.1:${(reg.address() as AddressInfo).port}`;
test.after.always(() => new Promise<void>((resolve) => reg.close(() => resolve())));

const entry = (id: string, models: [string, number][], extra: Record<string, unknown> = {}) => ({
  id, name: id, wire_type: 'chat_compat', base_url: `https://${id}.corp.example/v1`, guessed: false, needs_base_url: false, rejected: false,
  reject_reason: null, env_key: null, models: models.map(([m, ctx]) => ({ id: m, max_context_size: ctx, reasoning: false })), ...extra,
});
const serve = (p: string, items: unknown[]) => routes.set(p, [200, JSON.stringify({ items })]);

const server = (t: ExecutionContext) => serverFor(t, { config: '[providers.managed]\ntype = "svc"\noauth = { storage = "file", key = "managed" }\n' });
const readToml = async (s: TestServer) => parse(await readFile(path.join(s.home, 'config.toml'), 'utf8')) as Record<string, any>;
const importRegistry = (s: TestServer, b: unknown) => s.req('POST', '/api/v1/providers:import_registry', b);

test('import_registry imports every usable entry (201), reuses the key, and removes providers gone upstream', async (t) => {
  const s = await server(t);
  serve('/private.json', [
    entry('alpha', [['a1', 1000], ['a2', 2000]]),
    entry('beta', [['b1', 3000]]),
    entry('nobase', [['n', 10]], { base_url: null, needs_base_url: true }),
    entry('nope', [['x', 10]], { wire_type: null, rejected: true, reject_reason: 'unsupported' }),
  ]);
  const url = `${BASE}/private.json`;
  const res = await importRegistry(s, { url, api_key: REG_KEY });
  t.is(res.status, 201);
  t.is(res.body.code, 0, JSON.stringify(res.body));
  t.deepEqual(res.body.data.providers.map((p: any) => [p.id, p.models, p.has_api_key]), [['alpha', ['alpha/a1', 'alpha/a2'], true], ['beta', ['beta/b1'], true]]);
  t.is(res.body.data.models_imported, 3);
  let doc = await readToml(s);
  t.is(doc.default_model, 'alpha/a1');
  t.is(doc.providers.alpha.base_url, 'https://alpha.corp.example/v1');
  await s.post('/api/v1/config', { secondary_model: { default_model: 'beta/b1', models: { 'beta/b1': '', 'alpha/a1': '' } } });

  // Upstream drops beta and adds gamma; the key is reused (the registry refuses requests without it).
  serve('/private.json', [entry('alpha', [['a1', 1000]]), entry('gamma', [['g1', 500]])]);
  const again = await importRegistry(s, { url });
  t.is(again.status, 201);
  t.is(again.body.code, 0, JSON.stringify(again.body));
  t.deepEqual(again.body.data.providers.map((p: any) => p.id), ['alpha', 'gamma']);
  doc = await readToml(s);
  t.is(doc.providers.beta, undefined);
  t.is(doc.models['beta/b1'], undefined);
  t.is(doc.models['alpha/a2'], undefined);
  t.truthy(doc.providers.managed, 'providers of other origins stay');
  t.deepEqual(doc.secondary_model, { default_model: 'alpha/a1', models: { 'alpha/a1': '' } });
  t.is(doc.default_model, 'alpha/a1');

  // Refresh re-reads the registry for its providers.
  serve('/private.json', [entry('alpha', [['a1', 1000], ['a3', 9]]), entry('gamma', [['g1', 500]])]);
  const refresh = await s.post('/api/v1/providers/alpha:refresh');
  t.deepEqual(refresh.data.changed, [{ provider_id: 'alpha', provider_name: 'alpha', added: ['alpha/a3'], removed: [] }]);

  for (const url2 of ['/api/v1/providers', '/api/v1/models', '/api/v1/config', '/api/v1/providers/managed']) {
    t.false(JSON.stringify(await s.get(url2)).includes(REG_KEY), url2);
  }
  t.is((await s.get('/api/v1/providers/alpha')).data.api_key, REG_KEY);
});

test('import_registry errors: 40005 unreachable, HTTP error, bad JSON, nothing importable; 40001 bad url; 40003 OAuth clash', async (t) => {
  const s = await server(t);
  routes.set('/broken.json', [200, '{not json']);
  routes.set('/fail.json', [500, '{}']);
  serve('/rejected.json', [entry('r', [['x', 1]], { rejected: true, wire_type: null })]);
  serve('/managed.json', [entry('managed', [['m', 1]]), entry('ok', [['o', 1]])]);
  for (const p of ['/broken.json', '/fail.json', '/rejected.json', '/missing.json', '/private.json']) {
    t.is((await importRegistry(s, { url: BASE + p })).body.code, 40005, p);
  }
  t.is((await importRegistry(s, { url: 'ftp://example.com/x.json' })).body.code, 40001);
  t.is((await importRegistry(s, {})).body.code, 40001);
  t.is((await importRegistry(s, { url: `${BASE}/managed.json` })).body.code, 40003);
  const doc = await readToml(s);
  t.is(doc.providers.ok, undefined, 'a refused import writes nothing');
  t.deepEqual(Object.keys(doc.providers), ['managed']);
});
