import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';

/** A loopback URL nothing listens on: the live directory fetch fails at once, as with no network. */
async function deadUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `http://127.0.0.1:${port}/api.json`;
}

/** Starts a server with the directory env set for its start only (tests are serial: env is process-wide). */
async function start(t: any, env: Record<string, string>): Promise<TestServer> {
  Object.assign(process.env, env);
  try {
    const s = await startTestServer();
    t.teardown(() => s.stop());
    return s;
  } finally {
    for (const k of Object.keys(env)) delete process.env[k];
  }
}

test.serial('with the directory unreachable the built-in snapshot answers and imports work from it', async (t) => {
  const s = await start(t, { SVC_CODE_MODEL_DIRECTORY_URL: await deadUrl() });
  const res = await s.get('/api/v1/catalog/providers');
  t.is(res.code, 0);
  const ids = res.data.items.map((e: any) => e.id);
  t.true(ids.includes('openrouter'));
  for (const e of res.data.items) {
    t.deepEqual(Object.keys(e), ['id', 'name', 'wire_type', 'base_url', 'guessed', 'needs_base_url', 'rejected', 'reject_reason', 'env_key', 'models']);
    for (const m of e.models) t.true(Number.isInteger(m.max_context_size) && m.max_context_size >= 1 && typeof m.reasoning === 'boolean');
  }
  t.true(res.data.items.some((e: any) => e.rejected && e.base_url === null && e.wire_type === null));
  t.true(res.data.items.some((e: any) => e.needs_base_url && e.base_url === null));
  t.is((await s.get('/api/v1/catalog/providers/openrouter')).data.wire_type, 'chat_compat');
  const imported = await s.req('POST', '/api/v1/providers:import_catalog', { catalog_id: 'openrouter', api_key: 'sk-or' });
  t.is(imported.status, 201);
  t.true(imported.body.data.provider.models.includes('openrouter/qwen/qwen3-coder'));
  // An alias with two slashes works with set_default when URL-encoded.
  const set = await s.post(`/api/v1/models/${encodeURIComponent('openrouter/qwen/qwen3-coder')}:set_default`);
  t.is(set.data.default_model, 'openrouter/qwen/qwen3-coder');
  t.is((await s.req('POST', '/api/v1/providers:import_catalog', { catalog_id: 'amazon-bedrock' })).body.code, 40004);
});

test.serial('when both the directory and the snapshot fail: 50004', async (t) => {
  const s = await start(t, {
    SVC_CODE_MODEL_DIRECTORY_URL: await deadUrl(),
    SVC_CODE_MODEL_DIRECTORY_SNAPSHOT: path.join(await tempHome(), 'missing.json'),
  });
  t.is((await s.get('/api/v1/catalog/providers')).code, 50004);
  t.is((await s.get('/api/v1/catalog/providers/openai')).code, 50004);
  const imp = await s.req('POST', '/api/v1/providers:import_catalog', { catalog_id: 'openai' });
  t.is(imp.status, 200);
  t.is(imp.body.code, 50004);
});
