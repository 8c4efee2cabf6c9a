import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, text, type EngineEnv } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';

const YOLO = 'default_permission_mode = "yolo"';
const offered = (body: any): string[] => (body.tools ?? []).map((x: any) => x.function.name).sort();
const userTexts = (body: any): string[] => body.messages.filter((m: any) => m.role === 'user')
  .map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map((p: any) => p.text ?? '').join('')));

async function mainTurn(env: EngineEnv, words: string): Promise<void> {
  env.llm.setScript({ events: [{ text: `answer to ${words}` }] });
  const r = await prompt(env, words);
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  await until(async () => (await journal(env)).some((e) => e.type === 'turn.ended' && e.payload.agent_id === 'main' && e.payload.prompt_id === r.data.prompt_id));
}

test(':btw forks the main history into a read-only agent prompted with agent_id', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  await mainTurn(env, 'first question');
  const btw = await env.s.post(`/api/v1/sessions/${env.sid}:btw`, {});
  t.is(btw.code, 0);
  const agentId = btw.data.agent_id as string;
  t.regex(agentId, /^btw_[0-9A-Z]{26}$/);
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  t.like(spawned, { agent_id: agentId, kind: 'btw', parent_agent_id: 'main', tools: ['Read', 'Grep', 'Glob'] });

  env.llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'echo no' } } }] }, scripts.helloText);
  const r = await prompt(env, { content: text('by the way?'), agent_id: agentId });
  t.is(r.code, 0);
  await until(async () => (await journal(env)).some((e) => e.type === 'turn.ended' && e.payload.agent_id === agentId));
  const req = env.llm.requests.at(-2)!.body;
  t.deepEqual(offered(req), ['Glob', 'Grep', 'Read']);
  t.deepEqual(userTexts(req), ['first question', 'by the way?']);
  t.true(JSON.stringify(req.messages).includes('answer to first question'));
  const events = await journal(env);
  const bash = events.find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'b1')!.payload;
  t.true(bash.is_error);
  t.is(bash.agent_id, agentId);
  t.regex(bash.content, /tool not available: Bash/);
  t.true(events.some((e) => e.type === 'prompt.accepted' && e.payload.agent_id === agentId));
  // Its turn made the session busy (not main_turn_active), then idle again.
  // The journal is read over HTTP, so the WS frame of the last flip may still be on its way.
  const work = () => env.ws.frames.filter((f) => f.type === 'event.session.work_changed' && f.payload.session_id === env.sid).map((f) => [f.payload.busy, f.payload.main_turn_active]);
  await until(() => JSON.stringify(work().at(-1)) === '[false,false]' && work().length >= 4);
  t.deepEqual(work().slice(-2), [[true, false], [false, false]]);

  // The main agent's messages and state are untouched by the btw agent.
  const msgs = await env.s.get(`/api/v1/sessions/${env.sid}/messages`);
  t.is(msgs.data.items.length, 2);
  t.false(JSON.stringify(msgs.data.items).includes('by the way'));
  t.false(env.s.sessions.get(env.sid)!.active_turn !== undefined);
  env.llm.setScript({ events: [{ text: 'main again' }] });
  await mainTurn(env, 'second question');
  const mainReq = env.llm.requests.at(-1)!.body;
  t.deepEqual(userTexts(mainReq), ['first question', 'second question']);
});

test('a :btw agent survives a restart: its history is the fork prefix plus its own turns', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  await mainTurn(env, 'before fork');
  const agentId = (await env.s.post(`/api/v1/sessions/${env.sid}:btw`, {})).data.agent_id as string;
  await mainTurn(env, 'after fork');
  env.llm.setScript({ events: [{ text: 'btw answer one' }] });
  await prompt(env, { content: text('aside one'), agent_id: agentId });
  await until(async () => (await journal(env)).some((e) => e.type === 'turn.ended' && e.payload.agent_id === agentId));
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const env2 = { ...env, s: s2 };
  env.llm.setScript({ events: [{ text: 'btw answer two' }] });
  const r = await prompt(env2, { content: text('aside two'), agent_id: agentId });
  t.is(r.code, 0);
  await until(async () => (await journal(env2)).filter((e) => e.type === 'turn.ended' && e.payload.agent_id === agentId).length === 2);
  const req = env.llm.requests.at(-1)!.body;
  t.deepEqual(userTexts(req), ['before fork', 'aside one', 'aside two']);
  t.true(JSON.stringify(req.messages).includes('btw answer one'));
});

test('prompts to an unknown agent_id are 40001; :btw needs a model configuration (40110)', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const r = await prompt(env, { content: text('hi'), agent_id: 'btw_nope' });
  t.is(r.code, 40001);
  t.true(JSON.stringify(r.details).includes('agent_id'));
  const bare = await startEngine(t, { config: null });
  const b = await bare.s.post(`/api/v1/sessions/${bare.sid}:btw`, {});
  t.is(b.code, 40110);
  const missing = await env.s.post('/api/v1/sessions/ses_nope:btw', {});
  t.is(missing.code, 40401);
});

test('a :btw agent rebuilt after a restart keeps its fork prefix even when the main agent compacted later', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  await mainTurn(env, 'before fork');
  const agentId = (await env.s.post(`/api/v1/sessions/${env.sid}:btw`, {})).data.agent_id as string;
  env.llm.setScript({ events: [{ text: 'SUMMARY OF MAIN' }] });
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:compact`, {})).code, 0);
  await until(async () => (await journal(env)).some((e) => e.type === 'compaction.completed'));
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const env2 = { ...env, s: s2 };
  env.llm.setScript({ events: [{ text: 'btw answer' }] });
  t.is((await prompt(env2, { content: text('aside'), agent_id: agentId })).code, 0);
  await until(async () => (await journal(env2)).some((e) => e.type === 'turn.ended' && e.payload.agent_id === agentId));
  const req = env.llm.requests.at(-1)!.body;
  t.deepEqual(userTexts(req), ['before fork', 'aside']);
  t.false(JSON.stringify(req.messages).includes('SUMMARY OF MAIN'));
});
