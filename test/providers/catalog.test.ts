import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';

/** A loopback model directory in the models.dev shape; `doc` can be swapped, `hits` counts fetches. */
const upstream = { hits: 0, doc: {} as Record<string, unknown> };
const dirServer: Server = createServer((_req, res) => {
  upstream.hits++;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(upstream.doc));
});
await new Promise<void>((resolve) => dirServer.listen(0, '127.0.0.1', resolve));
const DIR_URL = `http://127.0.0.1:${(dirServer.address() as AddressInfo).port}/api.json`;
test.after.always(() => new Promise<void>((resolve) => dirServer.close(() => resolve())));

const model = (id: string, context: number, extra: Record<string, unknown> = {}) => ({ id, name: id.toUpperCase(), limit: { context, output: 4096 }, ...extra });
const DIRECTORY = {
  gw: {
    id: 'gw', name: 'Gateway', npm: '@ai-sdk/openai-compatible', api: 'https://gw.example/v1', env: ['GW_BASE', 'GW_API_KEY'],
    models: { 'gw-small': model('gw-small', 32000, { tool_call: true }), 'gw-think': model('gw-think', 128000, { reasoning: true, modalities: { input: ['text', 'image'] } }) },
  },
  anth: { id: 'anth', name: 'Anth', npm: '@ai-sdk/anthropic', env: ['ANTH_API_KEY'], models: { c1: model('c1', 200000) } },
  vert: { id: 'vert', name: 'Vert', npm: '@ai-sdk/google-vertex', env: [], models: { g1: model('g1', 1000000) } },
  weird: { id: 'weird', name: 'Weird', npm: '@acme/sdk', env: [], models: { w: model('w', 1000) } },
  guess: { id: 'guess', name: 'Guess', npm: '@acme/sdk', api: 'https://guess.example/v1', env: [], models: { q: model('q', 1000) } },
  empty: { id: 'empty', name: 'Empty', npm: '@ai-sdk/openai-compatible', api: 'https://empty.example/v1', env: [], models: {} },
  managed: { id: 'managed', name: 'Managed', npm: '@ai-sdk/openai-compatible', api: 'https://m.example/v1', env: [], models: { m: model('m', 1000) } },
};

let s: TestServer;
test.before(async () => {
  upstream.doc = DIRECTORY;
  process.env.SVC_CODE_MODEL_DIRECTORY_URL = DIR_URL;
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), '[providers.managed]\ntype = "svc"\noauth = { storage = "file", key = "managed" }\n');
  s = await startTestServer({ home });
  delete process.env.SVC_CODE_MODEL_DIRECTORY_URL;
});
test.after.always(() => s?.stop());

const readToml = async () => parse(await readFile(path.join(s.home, 'config.toml'), 'utf8')) as Record<string, any>;
const importCatalog = (b: unknown) => s.req('POST', '/api/v1/providers:import_catalog', b);

test.serial('the directory is proxied in upstream order, resolved to our item shape, and cached', async (t) => {
  const before = upstream.hits;
  const res = await s.get('/api/v1/catalog/providers');
  t.is(res.code, 0);
  t.deepEqual(res.data.items.map((e: any) => e.id), ['gw', 'anth', 'vert', 'weird', 'guess', 'empty', 'managed']);
  const [gw, anth, vert, weird, guess] = res.data.items;
  t.deepEqual(gw, {
    id: 'gw', name: 'Gateway', wire_type: 'chat_compat', base_url: 'https://gw.example/v1', guessed: false, needs_base_url: false, rejected: false,
    reject_reason: null, env_key: 'GW_API_KEY',
    models: [
      { id: 'gw-small', name: 'GW-SMALL', max_context_size: 32000, capabilities: ['tool_use'], reasoning: false },
      { id: 'gw-think', name: 'GW-THINK', max_context_size: 128000, capabilities: ['thinking', 'image_in'], reasoning: true },
    ],
  });
  t.like(anth, { wire_type: 'messages_api', base_url: 'https://api.anthropic.com/v1', needs_base_url: false });
  t.like(vert, { wire_type: 'cloud_ai', base_url: null, needs_base_url: true, rejected: false, env_key: null });
  t.like(weird, { wire_type: null, base_url: null, rejected: true, reject_reason: 'unsupported SDK: @acme/sdk' });
  t.like(guess, { wire_type: 'chat_compat', guessed: true, base_url: 'https://guess.example/v1' });
  await s.get('/api/v1/catalog/providers');
  t.is((await s.get('/api/v1/catalog/providers/anth')).data.id, 'anth');
  t.is(upstream.hits - before, 1, 'one upstream fetch for three reads within the cache window');
  t.is((await s.get('/api/v1/catalog/providers/nope')).code, 40417);
});

test.serial('import_catalog creates a provider (201), seeds the default and broadcasts the alias change', async (t) => {
  const events = s.committed((e) => e.type === 'event.model_catalog.changed');
  const res = await importCatalog({ catalog_id: 'gw', api_key: 'sk-CATALOG-SECRET' });
  t.is(res.status, 201);
  t.is(res.body.code, 0);
  t.deepEqual(res.body.data, {
    provider: { id: 'gw', type: 'chat_compat', base_url: 'https://gw.example/v1', has_api_key: true, status: 'connected', models: ['gw/gw-small', 'gw/gw-think'] },
    models_imported: 2,
  });
  const doc = await readToml();
  t.is(doc.default_model, 'gw/gw-small');
  t.deepEqual(doc.models['gw/gw-think'], { provider: 'gw', model: 'gw-think', max_context_size: 128000, display_name: 'GW-THINK', capabilities: ['thinking', 'image_in'] });
  t.is(events.length, 1);
  t.deepEqual((events[0].payload as any).added, ['gw/gw-small', 'gw/gw-think']);
  // Re-import: omitted key kept, existing default untouched, local id override.
  const again = await importCatalog({ catalog_id: 'gw' });
  t.is(again.status, 201);
  t.is((await s.get('/api/v1/providers/gw')).data.api_key, 'sk-CATALOG-SECRET');
  const named = await importCatalog({ catalog_id: 'anth', id: 'My Anth' });
  t.deepEqual(named.body.data.provider.models, ['My Anth/c1']);
  t.is(named.body.data.provider.type, 'messages_api');
  t.is((await readToml()).default_model, 'gw/gw-small');
  t.false(JSON.stringify(await s.get('/api/v1/catalog/providers')).includes('sk-CATALOG-SECRET'));
});

test.serial('import_catalog errors: 40004, 40417, 40003, 40001', async (t) => {
  const code = async (b: unknown) => (await importCatalog(b)).body.code;
  t.is(await code({ catalog_id: 'vert' }), 40004, 'needs a base_url');
  t.is(await code({ catalog_id: 'weird' }), 40004, 'rejected');
  t.is(await code({ catalog_id: 'empty' }), 40004, 'no importable models');
  t.is(await code({ catalog_id: 'gw', id: 'bad/id' }), 40004, 'unusable id');
  t.is(await code({ catalog_id: 'nope' }), 40417);
  t.is(await code({ catalog_id: 'managed' }), 40003);
  t.is(await code({ catalog_id: 'vert', base_url: 'https://${REGION}.vertex.example' }), 40001);
  t.is(await code({}), 40001);
  const ok = await importCatalog({ catalog_id: 'vert', base_url: 'https://eu.vertex.example/v1' });
  t.is(ok.status, 201);
  t.is(ok.body.data.provider.base_url, 'https://eu.vertex.example/v1');
});

test.serial('refresh re-reads a catalog-imported provider past the cache and reports the alias change', async (t) => {
  await importCatalog({ catalog_id: 'gw' });
  await s.post('/api/v1/config', { models: { 'gw/gw-small': { overrides: { display_name: 'Kept' } } } });
  // gw-small no longer lists tool_call but now reasons: capabilities are only ever added (Part B models).
  upstream.doc = { ...DIRECTORY, gw: { ...DIRECTORY.gw, models: { 'gw-small': model('gw-small', 64000, { reasoning: true }), 'gw-new': model('gw-new', 1000) } } };
  const before = upstream.hits;
  const events = s.committed((e) => e.type === 'event.model_catalog.changed');
  const res = await s.post('/api/v1/providers/gw:refresh');
  t.is(res.code, 0);
  t.deepEqual(res.data, { changed: [{ provider_id: 'gw', provider_name: 'gw', added: ['gw/gw-new'], removed: ['gw/gw-think'] }], unchanged: [], failed: [] });
  t.is(upstream.hits - before, 1);
  t.is(events.length, 1);
  t.like(events[0].payload as any, { reason: 'refresh', providers: ['gw'], added: ['gw/gw-new'], removed: ['gw/gw-think'], updated: ['gw/gw-small'] });
  const doc = await readToml();
  t.is(doc.models['gw/gw-small'].max_context_size, 64000);
  t.deepEqual(doc.models['gw/gw-small'].capabilities, ['tool_use', 'thinking'], 'a capability the directory dropped is kept; a new one is added');
  t.deepEqual(doc.models['gw/gw-small'].overrides, { display_name: 'Kept' }, 'overrides survive refreshes');
  const items = (await s.get('/api/v1/models')).data.items;
  t.is(items.find((m: any) => m.model === 'gw/gw-small').display_name, 'Kept');
  // Nothing changed upstream now.
  t.deepEqual((await s.post('/api/v1/providers/gw:refresh')).data, { changed: [], unchanged: ['gw'], failed: [] });
  t.is(events.length, 1, 'no event when nothing changed');
  // The entry disappears upstream: failed, aliases left alone.
  upstream.doc = { anth: DIRECTORY.anth };
  const gone = await s.post('/api/v1/providers:refresh');
  t.deepEqual(gone.data.failed.map((f: any) => f.provider), ['managed', 'gw', 'vert']);
  t.true(gone.data.unchanged.includes('My Anth'));
  t.truthy((await readToml()).models['gw/gw-new']);
  upstream.doc = DIRECTORY;
});
