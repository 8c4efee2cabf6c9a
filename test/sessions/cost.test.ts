import test from 'ava';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { agentCall, YOLO } from '../helpers/subagents.ts';

// Core usage object `total_cost_usd?`: priced from the built-in catalog snapshot's models (USD per million tokens),
// absent when a model used has no known price.

const config = (upstream: string, extra = '') => (url: string) => `default_model = "fx/model"
auto_session_title = false
${YOLO}
${extra}

[providers.fx]
type = "chat_compat"
base_url = "${url}/v1"
api_key = "sk-test"

[models."fx/model"]
provider = "fx"
model = "${upstream}"
max_context_size = 100000
`;

const usageOf = async (env: EngineEnv) => (await env.s.get(`/api/v1/sessions/${env.sid}/snapshot`)).data.session.usage;

test('total_cost_usd prices the tokens of a well-known model: input, output and cache reads at the snapshot prices', async (t) => {
  // claude-sonnet-4-20250514: $3 input, $15 output, $0.30 cache read per million tokens.
  const env = await startEngine(t, { config: config('claude-sonnet-4-20250514') });
  t.is((await usageOf(env)).total_cost_usd, undefined, 'nothing used yet');
  env.llm.setScript({ events: [{ text: 'hi' }], usage: { input: 1_000_000, output: 100_000, cache_read: 2_000_000 } });
  await prompt(env, 'hello');
  await turnEnded(env);
  const u = await usageOf(env);
  t.like(u, { output_tokens: 100_000, cache_read_tokens: 2_000_000 });
  const expected = (u.input_tokens * 3 + u.output_tokens * 15 + u.cache_read_tokens * 0.3 + u.cache_creation_tokens * 3.75) / 1e6;
  t.true(Math.abs(u.total_cost_usd - expected) < 1e-6, `${u.total_cost_usd} vs ${expected}`);
  t.true(u.total_cost_usd >= 4.5 + 0.6 - 1e-6);
});

test('total_cost_usd is absent for a model without a known price, and when a subagent used one', async (t) => {
  const env = await startEngine(t, { config: config('fixture-model') });
  env.llm.setScript({ events: [{ text: 'hi' }], usage: { input: 1000, output: 10 } });
  await prompt(env, 'hello');
  await turnEnded(env);
  const u = await usageOf(env);
  t.true(u.input_tokens > 0);
  t.false('total_cost_usd' in u);

  // A priced main model whose subagent ran on an unpriced pool model: the total would be understated, so absent.
  const mixed = await startEngine(t, { config: config('gpt-4.1-mini', `[secondary_model]
default_model = "cheap"

[models.cheap]
provider = "fx"
model = "unpriced-model"
max_context_size = 100000
`) });
  mixed.llm.setScript(agentCall('c1', { description: 'd', prompt: 'p' }), { events: [{ text: 'sub' }] }, { events: [{ text: 'done' }] });
  await prompt(mixed, 'go');
  await turnEnded(mixed);
  t.false('total_cost_usd' in (await usageOf(mixed)));
});
