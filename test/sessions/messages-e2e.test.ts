import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureLlm, scripts } from '../../fixtures/llm/index.ts';
import { newSession, startTestServer, tempHome } from '../helpers/server.ts';

test('a real prompt through the engine: messages, snapshot usage and /status read its events', async (t) => {
  const f = await startFixtureLlm();
  t.teardown(() => f.close());
  f.setScript(scripts.helloText);
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), `
default_model = "fx/m"
auto_session_title = false

[providers.fx]
type = "chat_compat"
base_url = "${f.url}/v1"
api_key = "sk-test"

[models."fx/m"]
provider = "fx"
model = "fixture-model"
max_context_size = 1000
`);
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const id = await newSession(s);
  const ended = new Promise<void>((resolve) => {
    s.journal.on('committed', (events: { stream: string; type: string }[]) => {
      if (events.some((e) => e.stream === id && e.type === 'turn.ended')) resolve();
    });
  });
  const res = await s.post(`/api/v1/sessions/${id}/prompts`, { content: [{ type: 'text', text: 'say hello' }] });
  t.is(res.code, 0, JSON.stringify(res));
  await ended;

  const page = (await s.get(`/api/v1/sessions/${id}/messages`)).data;
  t.deepEqual(page.items.map((m: { role: string }) => m.role), ['assistant', 'user']);
  t.deepEqual(page.items[0].content.filter((p: { type: string }) => p.type === 'text'), [{ type: 'text', text: 'Hello, world' }]);
  t.is((await s.get(`/api/v1/sessions/${id}/messages/${page.items[1].id}`)).data.content[0].text, 'say hello');

  const snap = (await s.get(`/api/v1/sessions/${id}/snapshot`)).data;
  t.is(snap.in_flight_turn, null);
  t.is(snap.as_of_seq, s.journal.head(id)!.seq);
  t.like(snap.session.usage, { input_tokens: 12, output_tokens: 3, cache_read_tokens: 4, turn_count: 1, context_limit: 1000 });
  t.is(snap.session.agent_config.model, 'fx/m');
  const st = (await s.get(`/api/v1/sessions/${id}/status`)).data;
  t.is(st.max_context_tokens, 1000);
  t.true(st.context_tokens > 0);
  t.is(st.context_usage, st.context_tokens / 1000);
});
