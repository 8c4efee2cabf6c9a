import test, { type ExecutionContext } from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import { serverFor } from '../helpers/server.ts';

const FILE = `
[providers.acme]
type = "chat_compat"
base_url = "https://llm.example/v1"
api_key = "sk-MODELS-SECRET-1234"

[models."acme/smart"]
provider = "acme"
model = "smart"
max_context_size = 200000
display_name = "Smart"
capabilities = ["thinking"]
support_efforts = ["low", "high"]
default_effort = "low"

[models."acme/smart".overrides]
max_context_size = 100000
display_name = "Smart (capped)"
default_effort = "high"

[models.bare]
provider = "acme"
model = "bare-model"
max_context_size = 4096

[models."ollama/llama3:8b"]
provider = "acme"
model = "llama3:8b"
max_context_size = 8192
`;

const server = (t: ExecutionContext) => serverFor(t, { config: FILE });

test('GET /models lists aliases with overrides applied and no key', async (t) => {
  const s = await server(t);
  const res = await s.get('/api/v1/models');
  t.is(res.code, 0);
  t.deepEqual(res.data.items, [
    { provider: 'acme', model: 'acme/smart', display_name: 'Smart (capped)', max_context_size: 100000, capabilities: ['thinking'], support_efforts: ['low', 'high'], default_effort: 'high' },
    { provider: 'acme', model: 'bare', max_context_size: 4096 },
    { provider: 'acme', model: 'ollama/llama3:8b', max_context_size: 8192 },
  ]);
  t.false(JSON.stringify(res).includes('sk-MODELS-SECRET-1234'));
  t.deepEqual((await s.get('/api/v1/providers/acme')).data.models, ['acme/smart', 'bare', 'ollama/llama3:8b']);
});

test('set_default takes a URL-encoded alias containing / and answers {default_model, model}', async (t) => {
  const s = await server(t);
  const res = await s.post(`/api/v1/models/${encodeURIComponent('acme/smart')}:set_default`);
  t.is(res.code, 0, JSON.stringify(res));
  t.is(res.data.default_model, 'acme/smart');
  t.is(res.data.model.model, 'acme/smart');
  t.is(res.data.model.max_context_size, 100000);
  const doc = parse(await readFile(path.join(s.home, 'config.toml'), 'utf8')) as any;
  t.is(doc.default_model, 'acme/smart');
  t.is((await s.get('/api/v1/config')).data.default_model, 'acme/smart');
  // An alias with a colon and a bare alias.
  t.is((await s.post(`/api/v1/models/${encodeURIComponent('ollama/llama3:8b')}:set_default`)).data.default_model, 'ollama/llama3:8b');
  t.is((await s.post('/api/v1/models/bare:set_default')).data.default_model, 'bare');
});

test('set_default errors: 40413 unknown alias, 40001 malformed alias and unsupported action', async (t) => {
  const s = await server(t);
  const missing = await s.post(`/api/v1/models/${encodeURIComponent('acme/nope')}:set_default`);
  t.is(missing.code, 40413);
  t.is((await s.post(`/api/v1/models/${encodeURIComponent('bad\u0001alias')}:set_default`)).code, 40001);
  t.is((await s.post('/api/v1/models/%20:set_default')).code, 40001);
  const action = await s.post('/api/v1/models/bare:promote');
  t.is(action.code, 40001);
  t.regex(action.msg, /unsupported action/);
  t.is((await s.get('/api/v1/config')).data.default_model, '', 'failed calls leave the default alone');
});
