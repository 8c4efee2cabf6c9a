import test, { type ExecutionContext } from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import type { JournalEvent } from '../../journal/types.ts';
import type { ModelCatalogChanged } from '../../src/providers/models/write.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

const P = '/api/v1/providers';
const KEY = 'sk-PROVIDER-SECRET-9f8e7d';

const server = (t: ExecutionContext, toml?: string) => serverFor(t, { config: toml || undefined });

const readToml = async (s: TestServer) => parse(await readFile(path.join(s.home, 'config.toml'), 'utf8')) as Record<string, any>;

function catalogEvents(s: TestServer): JournalEvent<ModelCatalogChanged>[] {
  const seen = s.committed<JournalEvent<ModelCatalogChanged>>((e) => e.type === 'event.model_catalog.changed');
  return seen;
}

const body = (id: string, extra: Record<string, unknown> = {}) => ({
  id, type: 'chat_compat', base_url: 'https://llm.example/v1', api_key: KEY,
  models: [{ model: 'fast-1', max_context_size: 128000, display_name: 'Fast' }, { model: 'smart-2', max_context_size: 200000, capabilities: ['thinking'], support_efforts: ['low', 'high'] }],
  ...extra,
});

test('create answers 201 with the provider item, writes aliases and seeds the default model', async (t) => {
  const s = await server(t);
  const events = catalogEvents(s);
  const res = await s.req('POST', P, body('acme', { default_model: 'smart-2' }));
  t.is(res.status, 201);
  t.is(res.body.code, 0);
  t.deepEqual(res.body.data, {
    id: 'acme', type: 'chat_compat', base_url: 'https://llm.example/v1', default_model: 'smart-2', has_api_key: true, status: 'connected',
    models: ['acme/fast-1', 'acme/smart-2'],
  });
  const doc = await readToml(s);
  t.is(doc.providers.acme.api_key, KEY);
  t.is(doc.default_model, 'acme/smart-2');
  t.deepEqual(doc.models['acme/fast-1'], { provider: 'acme', model: 'fast-1', max_context_size: 128000, display_name: 'Fast' });
  t.is(events.length, 1);
  t.deepEqual(events[0].payload, {
    reason: 'provider.created', providers: ['acme'], added: ['acme/fast-1', 'acme/smart-2'], removed: [], updated: [],
    // The refresh-report shape clients read (spec/clients.md E7).
    changed: [{ provider_id: 'acme', provider_name: 'acme', added: ['acme/fast-1', 'acme/smart-2'], removed: [] }], unchanged: [], failed: [],
  });
  // A second provider never modifies an existing default.
  const second = await s.req('POST', P, body('beta'));
  t.is(second.status, 201);
  t.is((await readToml(s)).default_model, 'acme/smart-2');
});

test('create seeds the first model when the provider names no default', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  t.is((await s.get('/api/v1/config')).data.default_model, 'acme/fast-1');
});

test('create validation: id rules, type enum, base_url placeholders, default_model, models', async (t) => {
  const s = await server(t);
  const bad = async (b: unknown, field: string) => {
    const res = await s.req('POST', P, b);
    t.is(res.body.code, 40001, JSON.stringify(b));
    t.true(JSON.stringify(res.body.details).includes(field), JSON.stringify(res.body.details));
  };
  await bad(body('-lead'), 'id');
  await bad(body('a/b'), 'id');
  await bad(body(''), 'id');
  await bad(body('acme', { type: 'openai' }), 'type');
  await bad(body('acme', { base_url: 'https://${HOST}/v1' }), 'base_url');
  await bad(body('acme', { base_url: 'https://$HOST/v1' }), 'base_url');
  await bad(body('acme', { default_model: 'nope' }), 'default_model');
  await bad(body('acme', { models: [] }), 'models');
  await bad(body('acme', { models: [{ model: 'x', max_context_size: 1 }, { model: 'x', max_context_size: 2 }] }), 'models');
  await bad(body('acme', { models: [{ model: 'x', max_context_size: 0 }] }), 'models.0.max_context_size');
  await bad(body('acme', { models: [{ model: 'x' }] }), 'models.0.max_context_size');
  await bad(body('acme', { models: [{ model: 'x', max_context_size: 1, capabilities: ['telepathy'] }] }), 'models.0.capabilities');
  await bad(body('acme', { models: [{ model: 'x', max_context_size: 1, max_output_size: 0 }] }), 'models.0.max_output_size');
  const ok = await s.req('POST', P, body('My Gateway_2-b'));
  t.is(ok.status, 201);
  t.deepEqual((await s.get(P)).data.items.map((p: any) => p.id), ['My Gateway_2-b']);
});

test('create of an existing id is 40921', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  const res = await s.req('POST', P, body('acme'));
  t.is(res.body.code, 40921);
});

test('GET by id reveals the key; no other GET contains it', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  const one = await s.get(`${P}/acme`);
  t.is(one.code, 0);
  t.is(one.data.api_key, KEY);
  t.is(one.data.has_api_key, true);
  for (const url of [P, '/api/v1/models', '/api/v1/config']) {
    const text = JSON.stringify(await s.get(url));
    t.false(text.includes(KEY), url);
  }
  t.is((await s.get(`${P}/nope`)).code, 40412);
  // A URL-encoded id with a space.
  await s.req('POST', P, body('my gw'));
  t.is((await s.get(`${P}/my%20gw`)).data.id, 'my gw');
});

test('PUT replaces type, base_url and models; aliases rebuilt, overrides kept; data {provider}', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  await s.req('POST', P, body('other'));
  await s.post('/api/v1/config', { models: { 'acme/fast-1': { overrides: { display_name: 'Mine' } } } });
  const events = catalogEvents(s);
  const res = await s.req('PUT', `${P}/acme`, { type: 'messages_api', models: [{ model: 'fast-1', max_context_size: 64000 }, { model: 'new-3', max_context_size: 1000 }] });
  t.is(res.body.code, 0);
  t.deepEqual(res.body.data.provider.models, ['acme/fast-1', 'acme/new-3']);
  t.is(res.body.data.provider.type, 'messages_api');
  t.is(res.body.data.provider.base_url, undefined);
  const doc = await readToml(s);
  t.is(doc.models['acme/smart-2'], undefined);
  t.deepEqual(doc.models['acme/fast-1'].overrides, { display_name: 'Mine' });
  t.truthy(doc.models['other/fast-1']);
  t.is(doc.providers.acme.api_key, KEY, 'omitted api_key keeps the key');
  t.is(events.length, 1);
  t.deepEqual(events[0].payload.added, ['acme/new-3']);
  t.deepEqual(events[0].payload.removed, ['acme/smart-2']);
});

test('PUT api_key is tri-state: omitted keeps, empty clears, other replaces', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  const put = (extra: Record<string, unknown>) => s.req('PUT', `${P}/acme`, { type: 'chat_compat', models: [{ model: 'm', max_context_size: 10 }], ...extra });
  await put({});
  t.is((await s.get(`${P}/acme`)).data.api_key, KEY);
  await put({ api_key: 'sk-NEW' });
  t.is((await s.get(`${P}/acme`)).data.api_key, 'sk-NEW');
  const cleared = await put({ api_key: '' });
  t.is(cleared.body.data.provider.has_api_key, false);
  t.is(cleared.body.data.provider.status, 'unconfigured');
  const one = await s.get(`${P}/acme`);
  t.false('api_key' in one.data);
  t.false('api_key' in (await readToml(s)).providers.acme);
});

test('PUT new_id migrates providers key, aliases, default_provider, default_model and the secondary pool', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  await s.req('POST', P, body('other'));
  await s.post('/api/v1/config', {
    default_provider: 'acme', default_model: 'acme/smart-2',
    models: { 'acme/fast-1': { overrides: { max_context_size: 5 } } },
    secondary_model: { default_model: 'acme/fast-1', models: { 'acme/fast-1': 'quick', 'acme/smart-2': '', 'other/fast-1': 'x' } },
  });
  const res = await s.req('PUT', `${P}/acme`, { new_id: 'acme2', type: 'chat_compat', base_url: 'https://b.example', models: body('x').models });
  t.is(res.body.code, 0, JSON.stringify(res.body));
  t.is(res.body.data.provider.id, 'acme2');
  t.deepEqual(res.body.data.provider.models, ['acme2/fast-1', 'acme2/smart-2']);
  const doc = await readToml(s);
  t.is(doc.providers.acme, undefined);
  t.is(doc.providers.acme2.api_key, KEY);
  t.is(doc.default_provider, 'acme2');
  t.is(doc.default_model, 'acme2/smart-2');
  t.deepEqual(doc.models['acme2/fast-1'].overrides, { max_context_size: 5 });
  t.false(Object.keys(doc.models).some((k) => k.startsWith('acme/')));
  t.deepEqual(doc.secondary_model, { default_model: 'acme2/fast-1', models: { 'acme2/fast-1': 'quick', 'acme2/smart-2': '', 'other/fast-1': 'x' } });
  t.is((await s.get(`${P}/acme`)).code, 40412);
});

test('PUT errors: 40412, 40921 taken new_id, 40001 alias collision, 40003 OAuth-managed', async (t) => {
  const s = await server(t, `
[providers.managed]
type = "svc"
oauth = { storage = "file", key = "managed" }

[providers.hand]
type = "chat_compat"

[models."acme2/fast-1"]
provider = "hand"
model = "fast-1"
max_context_size = 100
`);
  await s.req('POST', P, body('acme'));
  await s.req('POST', P, body('other'));
  const put = (id: string, extra: Record<string, unknown> = {}) => s.req('PUT', `${P}/${id}`, { type: 'chat_compat', models: body('x').models, ...extra });
  t.is((await put('ghost')).body.code, 40412);
  t.is((await put('acme', { new_id: 'other' })).body.code, 40921);
  const clash = await put('acme', { new_id: 'acme2' });
  t.is(clash.body.code, 40001);
  t.regex(clash.body.msg, /acme2\/fast-1/);
  t.is((await put('managed')).body.code, 40003);
  t.is((await put('acme', { new_id: 'bad/id' })).body.code, 40001);
  t.truthy((await readToml(s)).providers.acme, 'failed PUTs leave the file alone');
});

test('PUT removing aliases cascades into the secondary pool', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  await s.post('/api/v1/config', { secondary_model: { default_model: 'acme/smart-2', models: { 'acme/fast-1': '', 'acme/smart-2': '' } } });
  await s.req('PUT', `${P}/acme`, { type: 'chat_compat', models: [{ model: 'fast-1', max_context_size: 10 }] });
  t.deepEqual((await readToml(s)).secondary_model, { default_model: 'acme/fast-1', models: { 'acme/fast-1': '' } });
});

test('DELETE answers 204 with no body, removes aliases, cascades the pool, keeps default pointers', async (t) => {
  const s = await server(t);
  await s.req('POST', P, body('acme'));
  await s.req('POST', P, body('other'));
  await s.post('/api/v1/config', { default_provider: 'acme', secondary_model: { default_model: 'acme/fast-1', models: { 'acme/fast-1': '', 'other/fast-1': '' } } });
  const events = catalogEvents(s);
  const res = await fetch(`${s.baseUrl}${P}/acme`, { method: 'DELETE', headers: { Authorization: `Bearer ${s.token}` } });
  t.is(res.status, 204);
  t.is(await res.text(), '');
  const doc = await readToml(s);
  t.is(doc.providers.acme, undefined);
  t.deepEqual(Object.keys(doc.models), ['other/fast-1', 'other/smart-2']);
  t.is(doc.default_model, 'acme/fast-1', 'default pointers untouched');
  t.is(doc.default_provider, 'acme');
  t.deepEqual(doc.secondary_model, { default_model: 'other/fast-1', models: { 'other/fast-1': '' } });
  t.is(events.length, 1);
  t.deepEqual(events[0].payload.removed, ['acme/fast-1', 'acme/smart-2']);
  t.is((await s.req('DELETE', `${P}/acme`)).body.code, 40412);
});

test('DELETE of an OAuth-managed provider is 40003', async (t) => {
  const s = await server(t, '[providers.managed]\ntype = "svc"\noauth = { storage = "file", key = "managed" }\n');
  const res = await s.req('DELETE', `${P}/managed`);
  t.is(res.status, 200);
  t.is(res.body.code, 40003);
  t.truthy((await readToml(s)).providers.managed);
});

test('refresh reports static providers unchanged without network; OAuth ones need a login; unknown actions and providers fail', async (t) => {
  const s = await server(t, '[providers.managed]\ntype = "svc"\noauth = { storage = "file", key = "managed" }\n');
  await s.req('POST', P, body('acme'));
  const events = catalogEvents(s);
  t.deepEqual((await s.post(`${P}/acme:refresh`)).data, { changed: [], unchanged: ['acme'], failed: [] });
  // The OAuth-backed provider asks its host with the login's credential: without a login it fails, in-band.
  const all = (await s.post(`${P}:refresh`, { ignored: true })).data;
  t.deepEqual(all.unchanged, ['acme']);
  t.deepEqual(all.failed.map((f: any) => f.provider), ['managed']);
  const oauthOnly = (await s.post(`${P}:refresh_providers`)).data;
  t.deepEqual([oauthOnly.changed, oauthOnly.unchanged, oauthOnly.failed.map((f: any) => f.provider)], [[], [], ['managed']]);
  t.is((await s.post(`${P}/nope:refresh`)).code, 40412);
  const bad = await s.post(`${P}/acme:explode`);
  t.is(bad.code, 40001);
  t.regex(bad.msg, /unsupported action/);
  t.is((await s.post(`${P}:explode`)).code, 40001);
  t.is(events.length, 0);
});

test('provider list reports status and key presence from the env table too', async (t) => {
  const s = await server(t, `
[providers.envkey]
type = "chat_compat"
[providers.envkey.env]
OPENAI_API_KEY = "sk-from-env-table"

[providers.bare]
type = "genai"
`);
  const items = (await s.get(P)).data.items;
  t.deepEqual(items.map((p: any) => [p.id, p.has_api_key, p.status]), [['envkey', true, 'connected'], ['bare', false, 'unconfigured']]);
  t.false(JSON.stringify(items).includes('sk-from-env-table'));
});

test('the served specs document the routes and event.model_catalog.changed', async (t) => {
  const s = await server(t);
  const asyncapi = (await s.req('GET', '/asyncapi.json')).body as any;
  const msg = asyncapi.components.messages['event.model_catalog.changed'];
  t.truthy(msg);
  t.deepEqual(Object.keys(msg.payload.properties.payload.properties), ['reason', 'providers', 'added', 'removed', 'updated', 'changed', 'unchanged', 'failed']);
  const openapi = (await s.req('GET', '/openapi.json')).body as any;
  const ops = JSON.stringify(openapi.paths);
  for (const op of ['createProvider', 'importRegistryProviders', 'importCatalogProvider', 'setDefaultModel', 'listCatalogProviders', 'refreshOAuthProviders']) t.true(ops.includes(op), op);
});
