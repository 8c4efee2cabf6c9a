import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts, startFixtureLlm } from '../../fixtures/llm/index.ts';
import { prompt } from '../helpers/engine.ts';
import { connectWs, newSession, startTestServer, tempHome, TEST_TOKEN } from '../helpers/server.ts';

async function managedServer(t: any, state?: 'revoked') {
  const llm = await startFixtureLlm();
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), `default_model = "managed/m"
auto_session_title = false
[providers.managed]
type = "svc"
base_url = "${llm.url}/v1"
[providers.managed.oauth]
storage = "file"
key = "managed"
[models."managed/m"]
provider = "managed"
model = "m"
max_context_size = 1000
`);
  await mkdir(path.join(home, 'credentials'), { recursive: true });
  await writeFile(path.join(home, 'credentials', 'managed.json'), JSON.stringify({
    provider: 'managed', host: 'http://127.0.0.1:9', client_id: 'c', region: 'global', access_token: 'oauth-token-1', token_type: 'Bearer',
    expires_at: new Date(Date.now() + 3600_000).toISOString(), obtained_at: new Date().toISOString(), ...(state ? { state } : {}),
  }));
  const s = await startTestServer({ home });
  t.teardown(async () => {
    await s.stop();
    await llm.close();
  });
  return { s, llm, sid: await newSession(s) };
}

test('a managed provider whose login was revoked answers 40112 with the provider id', async (t) => {
  const env = await managedServer(t, 'revoked');
  const r = await prompt(env, 'x');
  t.is(r.code, 40112);
  t.is(r.details.provider_id, 'managed');
  t.is(env.llm.requests.length, 0);
});

test('a managed provider sends the OAuth access token as its key', async (t) => {
  const env = await managedServer(t);
  const ws = await connectWs(env.s.baseUrl, undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
  t.teardown(() => ws.close());
  await ws.request('subscribe', { session_ids: [env.sid] });
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, 'x')).code, 0);
  t.is((await ws.waitFor((f) => f.type === 'turn.ended')).payload.reason, 'completed');
  t.is(env.llm.requests[0]!.headers.authorization, 'Bearer oauth-token-1');
});
