import test from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ENV = {
  SVC_MODEL_NAME: 'tmp-model',
  SVC_MODEL_PROVIDER_TYPE: 'chat_compat',
  SVC_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
  SVC_MODEL_API_KEY: 'sk-ENV-TEMP-SECRET',
  SVC_MODEL_MAX_CONTEXT_SIZE: '32768',
  SVC_MODEL_DISPLAY_NAME: 'Temp',
  SVC_MODEL_CAPABILITIES: 'thinking, image_in',
};

test.serial('SVC_MODEL_* synthesize an in-memory provider and alias that never reach config.toml nor survive a restart', async (t) => {
  Object.assign(process.env, ENV);
  let s: TestServer;
  try {
    s = await startTestServer();
  } finally {
    for (const k of Object.keys(ENV)) delete process.env[k];
  }
  t.teardown(() => s.stop());
  const providers = (await s.get('/api/v1/providers')).data.items;
  t.deepEqual(providers, [{ id: 'env', type: 'chat_compat', base_url: 'http://127.0.0.1:9/v1', has_api_key: true, status: 'connected', models: ['env/tmp-model'] }]);
  t.deepEqual((await s.get('/api/v1/models')).data.items, [
    { provider: 'env', model: 'env/tmp-model', display_name: 'Temp', max_context_size: 32768, capabilities: ['thinking', 'image_in'] },
  ]);
  const config = await s.get('/api/v1/config');
  t.is(config.data.default_model, 'env/tmp-model', 'the temporary model is the default while the file names none');
  t.is(config.data.providers.env.has_api_key, true, 'a provider named env is not an env table');
  t.false(JSON.stringify(config).includes('sk-ENV-TEMP-SECRET'));
  const one = await s.get('/api/v1/providers/env');
  t.is(one.data.has_api_key, true);
  t.false(JSON.stringify(one).includes('sk-ENV-TEMP-SECRET'), 'the key is in the environment, not stored: not revealed');
  const file = () => readFile(path.join(s.home, 'config.toml'), 'utf8');
  t.false((await file()).includes('tmp-model'));

  // It cannot be written through the API: it lives in the environment.
  t.is((await s.req('PUT', '/api/v1/providers/env', { type: 'chat_compat', models: [{ model: 'x', max_context_size: 1 }] })).body.code, 40001);
  t.is((await s.req('DELETE', '/api/v1/providers/env')).body.code, 40001);
  t.is((await s.req('POST', '/api/v1/providers', { id: 'env', type: 'chat_compat', models: [{ model: 'x', max_context_size: 1 }] })).body.code, 40921);
  t.deepEqual((await s.post('/api/v1/providers/env:refresh')).data, { changed: [], unchanged: ['env'], failed: [] });

  // Another provider seeds the file's default, which then wins over the temporary fallback.
  await s.req('POST', '/api/v1/providers', { id: 'real', type: 'chat_compat', models: [{ model: 'r', max_context_size: 10 }] });
  t.is((await s.get('/api/v1/config')).data.default_model, 'real/r');
  t.false((await file()).includes('tmp-model'));
  t.false((await file()).includes('sk-ENV-TEMP-SECRET'));

  s = await s.restart();
  t.deepEqual((await s.get('/api/v1/providers')).data.items.map((p: any) => p.id), ['real']);
  t.deepEqual((await s.get('/api/v1/models')).data.items.map((m: any) => m.model), ['real/r']);
});
