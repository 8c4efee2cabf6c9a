import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts, startFixtureLlm } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, text } from '../helpers/engine.ts';
import { newSession, startTestServer, tempHome, type TestServer } from '../helpers/server.ts';

const OTHER = `[models."fx/other"]
provider = "fx"
model = "other-model"
max_context_size = 100000
`;

function promptEnded(env: { ws: { waitFor(p: (f: any) => boolean, ms?: number): Promise<any> } }, promptId: string) {
  return env.ws.waitFor((f) => f.type === 'turn.ended' && f.payload.prompt_id === promptId, 30_000);
}

async function serverWith(t: any, config: string): Promise<{ s: TestServer; sid: string }> {
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), config);
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  return { s, sid: await newSession(s) };
}

test('prompt overrides become the session agent_config, in the prompt batch, and survive a restart', async (t) => {
  const env = await startEngine(t, { extraToml: OTHER });
  env.llm.setScript(scripts.helloText);
  const first = await prompt(env, { content: text('one'), model: 'fx/other', permission_mode: 'yolo', disabled_tools: ['shell'] });
  t.is(first.code, 0);
  t.is((await promptEnded(env, first.data.prompt_id)).payload.reason, 'completed');
  t.is(env.llm.requests[0]!.model, 'other-model');

  const events = await journal(env);
  const accepted = events.find((e) => e.type === 'prompt.accepted')!;
  const updated = events.find((e) => e.type === 'session.profile_updated')!;
  t.is(updated.seq, accepted.seq + 1, 'journaled in the same batch, right after prompt.accepted');
  t.deepEqual(updated.payload.agent_config, { model: 'fx/other', permission_mode: 'yolo', disabled_tools: ['shell'] });

  const status = (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data;
  t.is(status.permission, 'yolo');
  t.is(status.model, 'fx/other');

  await env.ws.close();
  env.s = await env.s.restart();
  env.ws = await env.s.ws();
  await env.ws.request('subscribe', { session_ids: [env.sid] });
  const after = (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data;
  t.is(after.permission, 'yolo', 'permission_mode outlives the process');
  t.is(after.model, 'fx/other');
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/snapshot`)).data.session.agent_config.model, 'fx/other');

  env.llm.setScript(scripts.helloText);
  const second = await prompt(env, 'two');
  t.is(second.code, 0);
  t.is((await promptEnded(env, second.data.prompt_id)).payload.reason, 'completed');
  t.is(env.llm.requests[1]!.model, 'other-model', 'a prompt without model uses the session model');
  const accepted2 = (await journal(env)).filter((e) => e.type === 'prompt.accepted').at(-1)!;
  t.is(accepted2.payload.overrides.model, 'fx/other');
  t.is((await journal(env)).filter((e) => e.type === 'session.profile_updated').length, 1, 'a prompt with no overrides changes nothing');
});

test('40111 follows the wire rules: an unlisted env name is no credential, a listed one is', async (t) => {
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const config = (env: string) => `default_model = "k/m"
auto_session_title = false
[providers.k]
type = "chat_compat"
base_url = "${llm.url}/v1"
[providers.k.env]
${env}
[models."k/m"]
provider = "k"
model = "m"
max_context_size = 100000
`;
  const bad = await serverWith(t, config('MY_SECRET_KEY = "sk-x"'));
  const r = await prompt(bad, 'x');
  t.is(r.code, 40111);
  t.is(r.details.provider_id, 'k');
  t.is(llm.requests.length, 0);
  const good = await serverWith(t, config('OPENAI_API_KEY = "sk-listed"'));
  llm.setScript(scripts.helloText);
  t.is((await prompt(good, 'x')).code, 0);
});

test('40111 for a cloud_ai provider with neither a key nor a service account', async (t) => {
  const env = await serverWith(t, `default_model = "v/m"
[providers.v]
type = "cloud_ai"
[providers.v.env]
GOOGLE_VERTEX_PROJECT = "p"
[models."v/m"]
provider = "v"
model = "gemini"
max_context_size = 100000
`);
  const r = await prompt(env, 'x');
  t.is(r.code, 40111);
  t.is(r.details.provider_id, 'v');
});

test('a providerless flat model with its own base_url is ready and answers prompts', async (t) => {
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const { s, sid } = await serverWith(t, `default_model = "local/flat"
auto_session_title = false
[models."local/flat"]
model = "flat-model"
base_url = "${llm.url}/v1"
api_key = "sk-flat"
max_context_size = 100000
[models."local/nokey"]
model = "flat-model"
base_url = "${llm.url}/v1"
max_context_size = 100000
`);
  t.true((await s.get('/api/v1/auth')).data.models_ready);
  const ws = await s.ws();
  t.teardown(() => ws.close());
  await ws.request('subscribe', { session_ids: [sid] });
  llm.setScript(scripts.helloText);
  const r = await prompt({ s, sid }, 'x');
  t.is(r.code, 0);
  t.is((await promptEnded({ ws }, r.data.prompt_id)).payload.reason, 'completed');
  t.is(llm.requests[0]!.model, 'flat-model');
  t.is(llm.requests[0]!.headers.authorization, 'Bearer sk-flat');
  const nokey = await prompt({ s, sid }, { content: text('y'), model: 'local/nokey' });
  t.is(nokey.code, 40111);
  t.is(nokey.details.provider_id, 'local/nokey');
});
