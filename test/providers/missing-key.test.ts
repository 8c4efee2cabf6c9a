import test from 'ava';
import { writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { api, spawnDaemon } from '../helpers/process.ts';
import { tempDir } from '../helpers/fs.ts';
import { tempHome } from '../helpers/server.ts';

const CONFIG = `default_model = "nokey"
auto_session_title = false

[providers.keyless]
type = "messages_api"
base_url = "http://127.0.0.1:9/v1"

[providers.keyed]
type = "chat_compat"
base_url = "http://127.0.0.1:9/v1"
env = { OPENAI_API_KEY = "sk-test" }

[models.nokey]
provider = "keyless"
model = "m"
max_context_size = 100000
`;

test('a provider without a key is named in a warning at start; the daemon runs and a prompt to its model answers 40111', async (t) => {
  const home = await tempHome();
  t.teardown(() => rm(home, { recursive: true, force: true }));
  await writeFile(path.join(home, 'config.toml'), CONFIG);
  const daemon = await spawnDaemon(home);
  t.teardown(() => daemon.stop());
  const log = daemon.stdout() + daemon.stderr();
  t.regex(log, /provider \\"keyless\\" has no API key/);
  t.notRegex(log, /provider \\"keyed\\" has no API key/);
  const sid = (await api(daemon.baseUrl, 'POST', '/api/v1/sessions', { metadata: { cwd: await tempDir() } })).data.id;
  const r = await api(daemon.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'hi' }] });
  t.is(r.code, 40111);
  t.like(r.details, { provider_id: 'keyless' });
});
