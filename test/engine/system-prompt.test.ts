import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { engineConfig, journal, prompt, startEngine, turnEnded } from '../helpers/engine.ts';
import { agentCall, say, turnEnded as subTurnEnded, withSubLlm } from '../helpers/subagents.ts';
import { until } from '../helpers/wait.ts';
import { newSession } from '../helpers/server.ts';

const systemOf = (body: any): string => body.messages.find((m: any) => m.role === 'system')?.content ?? '';

test('the main agent runs with a system prompt naming the identity, the workspace and AGENTS.md; it is recorded once', async (t) => {
  const env = await startEngine(t, { extraToml: '[identity]\nname = "Acme Coder"' });
  const cwd = env.s.sessions.get(env.sid)!.cwd;
  await writeFile(path.join(cwd, 'AGENTS.md'), 'Always run `make lint` before finishing.\n');
  env.llm.setScript(scripts.helloText, scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  const sys = systemOf(env.llm.requests[0]!.body);
  t.true(sys.startsWith('You are Acme Coder,'));
  t.true(sys.includes(`Working directory (workspace root): ${cwd}`));
  t.true(sys.includes('Always run `make lint` before finishing.'));
  await prompt(env, 'again');
  await turnEnded(env, 2);
  t.is(systemOf(env.llm.requests[1]!.body), sys);
  const recorded = (await journal(env)).filter((e) => e.type === 'system_prompt.recorded');
  t.is(recorded.length, 1);
  t.like(recorded[0]!.payload, { agent_id: 'main', identity: { name: 'Acme Coder', slug: 'acme-coder' } });
  // What each turn adds (the skills the model may load: the product's built-in one here) is not recorded.
  const text: string = recorded[0]!.payload.text;
  t.true(sys.startsWith(text));
  t.regex(sys.slice(text.length), /^\n\nSkills you can load with the Skill tool[^]*\n- svc-code-api: /);
});

test('a long AGENTS.md is cut at 40,000 characters, multibyte text included', async (t) => {
  const env = await startEngine(t);
  const cwd = env.s.sessions.get(env.sid)!.cwd;
  await writeFile(path.join(cwd, 'AGENTS.md'), 'é'.repeat(39_999) + '€' + 'tail that is cut'.repeat(1_000));
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  const sys = systemOf(env.llm.requests[0]!.body);
  t.true(sys.includes('é'.repeat(39_999) + '€\n[AGENTS.md cut at 40000 characters]'));
  t.false(sys.includes('tail that is cut'));
});

test('a resumed session keeps its recorded system prompt after the identity changes; a new session gets the new one', async (t) => {
  const env = await startEngine(t, { extraToml: '[identity]\nname = "Old Name"' });
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  await writeFile(path.join(env.s.home, 'config.toml'), engineConfig(env.llm.url, '[identity]\nname = "New Name"'));
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const env2 = { ...env, s: s2 };
  env.llm.setScript(scripts.helloText, scripts.helloText);
  await prompt(env2, 'resumed');
  await until(() => env.llm.requests.length === 2);
  t.true(systemOf(env.llm.requests[1]!.body).startsWith('You are Old Name,'));
  const fresh = await newSession(s2);
  await s2.post(`/api/v1/sessions/${fresh}/prompts`, { content: [{ type: 'text', text: 'new' }] });
  await until(() => env.llm.requests.length === 3);
  t.true(systemOf(env.llm.requests[2]!.body).startsWith('You are New Name,'));
});

test('plan mode adds a reminder to the system prompt of each request while it is on', async (t) => {
  const env = await startEngine(t);
  await env.s.post(`/api/v1/sessions/${env.sid}/profile`, { agent_config: { plan_mode: true } });
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'plan it');
  await turnEnded(env);
  t.regex(systemOf(env.llm.requests[0]!.body), /<system-reminder>Plan mode is on/);
});

test('a subagent runs with its parent\'s system prompt plus its role; a :btw agent with the parent\'s', async (t) => {
  const { env, sub } = await withSubLlm(t);
  sub.setScript(say('sub answer'));
  env.llm.setScript(agentCall('c1', { description: 'look', prompt: 'p' }), say('done'));
  await prompt(env, 'go');
  await subTurnEnded(env);
  const main = systemOf(env.llm.requests[0]!.body);
  const subSys = systemOf(sub.requests[0]!.body);
  t.true(main.length > 100);
  const recorded: string = (await journal(env)).find((e) => e.type === 'system_prompt.recorded' && e.payload.agent_id === 'main')!.payload.text;
  t.true(main.startsWith(recorded));
  t.true(subSys.startsWith(recorded));
  t.regex(subSys, /You are running as a subagent/);
  const agentId = (await env.s.post(`/api/v1/sessions/${env.sid}:btw`, {})).data.agent_id;
  env.llm.setScript(say('aside'));
  await prompt(env, { content: [{ type: 'text', text: 'btw?' }], agent_id: agentId });
  await until(async () => (await journal(env)).some((e) => e.type === 'turn.ended' && e.payload.agent_id === agentId));
  // The :btw agent has no Skill tool, so no skills section: its prompt is the recorded one.
  t.is(systemOf(env.llm.requests.at(-1)!.body), recorded);
  t.true((await journal(env)).some((e) => e.type === 'system_prompt.recorded' && e.payload.agent_id === agentId));
});
