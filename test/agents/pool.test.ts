import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { engineConfig, journal, prompt, startEngine, type EngineEnv } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { startTestServer, tempHome } from '../helpers/server.ts';
import { say, turnEnded, userTexts, YOLO } from '../helpers/subagents.ts';
import { until } from '../helpers/wait.ts';

// Part B "secondary_model (subagent model pool)" rules 1-7, seen from the Agent tool and the session endpoints.

const agentCalls = (...calls: Array<[string, Record<string, unknown>]>) => ({
  events: calls.map(([id, args]) => ({ tool_call: { id, name: 'Agent', args: { description: 'd', prompt: `task ${id}`, ...args } } })),
});
/** Two pool-able thinking entries on the fixture provider; `a` lists efforts. */
const MODELS = (a = '', b = '') => `
[models.a]
provider = "fx"
model = "model-a"
max_context_size = 100000
capabilities = ["thinking"]
${a}

[models.b]
provider = "fx"
model = "model-b"
max_context_size = 100000
capabilities = ["thinking"]
${b}
`;
const agentParams = (body: any) => body.tools.find((x: any) => x.function.name === 'Agent').function.parameters;

async function results(env: EngineEnv): Promise<Record<string, { content: string; is_error?: boolean }>> {
  const out: Record<string, any> = {};
  for (const e of await journal(env)) if (e.type === 'tool.result') out[e.payload.tool_call_id] = e.payload;
  return out;
}

/**
 * Runs one main turn whose first step makes the given Agent calls; the subagent whose request comes n-th answers
 * `sub <n>`. The subagents run concurrently, so `subRequests` and `spawned` are put back in the calls' order, and
 * `answered` maps a call to the answer its own subagent got.
 */
async function spawnAll(env: EngineEnv, calls: Array<[string, Record<string, unknown>]>, spawns: number) {
  env.llm.setScript(agentCalls(...calls), ...Array.from({ length: spawns }, (_, i) => say(`sub ${i}`)), say('done'));
  await prompt(env, 'delegate');
  const ended = await turnEnded(env);
  if (ended.payload.reason !== 'completed') throw new Error(`main turn ended ${ended.payload.reason}`);
  const order = calls.map(([id]) => id);
  const arrived = env.llm.requests.slice(1, 1 + spawns);
  const callOf = (r: (typeof arrived)[number]) => order.find((id) => userTexts(r.body).includes(`task ${id}`))!;
  const answered = Object.fromEntries(arrived.map((r, i) => [callOf(r), `sub ${i}`]));
  const subRequests = [...arrived].sort((a, b) => order.indexOf(callOf(a)) - order.indexOf(callOf(b)));
  const spawned = (await journal(env)).filter((e) => e.type === 'subagent.spawned').map((e) => e.payload)
    .sort((a, b) => order.indexOf(a.parent_tool_call_id) - order.indexOf(b.parent_tool_call_id));
  return { spawned, results: await results(env), subRequests, answered };
}

test('rule 1: without a pool no model parameter is offered and subagents use the caller model', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n${MODELS()}` });
  const { spawned, results: r, subRequests } = await spawnAll(env, [['c1', {}], ['c2', { model: 'primary' }], ['c3', { model: 'a' }]], 2);
  t.false('model' in agentParams(env.llm.requests[0]!.body).properties);
  t.deepEqual(subRequests.map((x) => x.model), ['fixture-model', 'fixture-model']);
  t.deepEqual(spawned.map((s) => s.model), ['fx/model', 'fx/model']);
  t.true(r.c3!.is_error);
  t.is(spawned.length, 2);
});

test('rule 3: a pool offers model with its aliases and primary; default, explicit, primary and unknown choices', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[secondary_model]\ndefault_model = "a"\nmodels = { a = "fast", b = "" }\n${MODELS()}` });
  const calls: Array<[string, Record<string, unknown>]> = [['c1', {}], ['c2', { model: 'b' }], ['c3', { model: 'primary' }], ['c4', { model: 'zzz' }]];
  const { spawned, results: r, subRequests, answered } = await spawnAll(env, calls, 3);
  const param = agentParams(env.llm.requests[0]!.body).properties.model;
  t.deepEqual(param.enum, ['a', 'b', 'primary']);
  t.regex(param.description, /fast/);
  t.deepEqual(subRequests.map((x) => x.model), ['model-a', 'model-b', 'fixture-model']);
  t.deepEqual(spawned.map((s) => s.model), ['a', 'b', 'fx/model']);
  t.deepEqual([r.c1!.content, r.c2!.content, r.c3!.content], [answered.c1, answered.c2, answered.c3]);
  t.deepEqual(Object.values(answered).sort(), ['sub 0', 'sub 1', 'sub 2']);
  t.true(r.c4!.is_error);
  t.regex(r.c4!.content, /zzz/);
  t.regex(r.c4!.content, /a, b, primary/);
});

test('rule 1: a lone default_model is a pool of one', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[secondary_model]\ndefault_model = "b"\n${MODELS()}` });
  const { results: r, subRequests } = await spawnAll(env, [['c1', {}], ['c2', { model: 'a' }]], 1);
  t.deepEqual(agentParams(env.llm.requests[0]!.body).properties.model.enum, ['b', 'primary']);
  t.deepEqual(subRequests.map((x) => x.model), ['model-b']);
  t.true(r.c2!.is_error);
});

test('rule 3: a default_model of primary offers primary once and binds the caller model', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[secondary_model]\ndefault_model = "primary"\n${MODELS()}` });
  const { spawned, subRequests } = await spawnAll(env, [['c1', {}]], 1);
  t.deepEqual(agentParams(env.llm.requests[0]!.body).properties.model.enum, ['primary']);
  t.is(subRequests[0]!.model, 'fixture-model');
  t.is(spawned[0].model, 'fx/model');
});

test('rule 5: force pins the default model, offers no model parameter and rejects any explicit model, primary included', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[secondary_model]\ndefault_model = "a"\nforce = true\n${MODELS()}` });
  const { spawned, results: r, subRequests } = await spawnAll(env, [['c1', {}], ['c2', { model: 'primary' }], ['c3', { model: 'a' }]], 1);
  t.false('model' in agentParams(env.llm.requests[0]!.body).properties);
  t.deepEqual(subRequests.map((x) => x.model), ['model-a']);
  t.is(spawned.length, 1);
  t.true(r.c2!.is_error);
  t.true(r.c3!.is_error);
  t.regex(r.c2!.content, /force/);
});

// Rule 4 on the chat_compat wire: the bound effort goes out as `reasoning_effort` (off: the entry's off_effort).
const EFFORT_CASES: Array<{ title: string; toml: string; sub: string | undefined; label: string; main?: string | undefined }> = [
  {
    title: 'the entry default_effort wins over [thinking].effort (which the main agent uses)',
    toml: `[thinking]\neffort = "high"\n[secondary_model]\ndefault_model = "a"\n${MODELS('support_efforts = ["low", "medium", "high"]\ndefault_effort = "low"')}`,
    sub: 'low', label: 'low', main: 'high',
  },
  {
    title: 'the section default_effort wins over the entry default_effort',
    toml: `[secondary_model]\ndefault_model = "a"\ndefault_effort = "medium"\n${MODELS('support_efforts = ["low", "medium", "high"]\ndefault_effort = "low"')}`,
    sub: 'medium', label: 'medium',
  },
  {
    title: '[thinking] enabled=false keeps a bound alias off',
    toml: `[thinking]\nenabled = false\n[secondary_model]\ndefault_model = "a"\n${MODELS('support_efforts = ["low", "high"]\ndefault_effort = "low"\noff_effort = "none"')}`,
    sub: 'none', label: 'off',
  },
  {
    title: 'the section default_effort wins even over [thinking] enabled=false',
    toml: `[thinking]\nenabled = false\n[secondary_model]\ndefault_model = "a"\ndefault_effort = "high"\n${MODELS('support_efforts = ["low", "high"]\noff_effort = "none"')}`,
    sub: 'high', label: 'high',
  },
  {
    title: 'without an entry default_effort the global [thinking].effort applies',
    toml: `[thinking]\neffort = "low"\n[secondary_model]\ndefault_model = "a"\n${MODELS('support_efforts = ["low", "medium", "high"]')}`,
    sub: 'low', label: 'low',
  },
  {
    title: 'with no effort configured anywhere the middle of support_efforts applies',
    toml: `[secondary_model]\ndefault_model = "a"\n${MODELS('support_efforts = ["low", "medium", "high"]')}`,
    sub: 'medium', label: 'medium',
  },
  {
    title: 'a [thinking].effort the bound model does not list falls back to its support_efforts',
    toml: `[thinking]\neffort = "max"\n[secondary_model]\ndefault_model = "a"\n${MODELS('support_efforts = ["low", "medium", "high"]')}`,
    sub: 'medium', label: 'medium', main: 'max',
  },
  {
    title: 'a section default_effort the bound model does not list falls back to its default_effort',
    toml: `[secondary_model]\ndefault_model = "a"\ndefault_effort = "max"\n${MODELS('support_efforts = ["low", "high"]\ndefault_effort = "high"')}`,
    sub: 'high', label: 'high',
  },
];

for (const c of EFFORT_CASES) {
  test(`rule 4: ${c.title}`, async (t) => {
    const env = await startEngine(t, { extraToml: `${YOLO}\n${c.toml}` });
    const { spawned, subRequests } = await spawnAll(env, [['c1', {}]], 1);
    t.is(subRequests[0]!.model, 'model-a');
    t.is(subRequests[0]!.body.reasoning_effort, c.sub);
    t.is(spawned[0].thinking_effort, c.label);
    if ('main' in c) t.is(env.llm.requests[0]!.body.reasoning_effort, c.main);
  });
}

test('rule 6: a variant entry of the same model offers its own effort through overrides', async (t) => {
  const variant = `
[models.a-hi]
provider = "fx"
model = "model-a"
max_context_size = 100000
capabilities = ["thinking"]
support_efforts = ["low", "high"]

[models.a-hi.overrides]
default_effort = "high"
`;
  const pool = `[secondary_model]\ndefault_model = "a"\nmodels = { a = "", a-hi = "harder problems" }`;
  const env = await startEngine(t, { extraToml: `${YOLO}\n${pool}\n${MODELS('support_efforts = ["low", "high"]\ndefault_effort = "low"')}\n${variant}` });
  const { spawned, subRequests } = await spawnAll(env, [['c1', {}], ['c2', { model: 'a-hi' }]], 2);
  t.deepEqual(subRequests.map((x) => [x.model, x.body.reasoning_effort]), [['model-a', 'low'], ['model-a', 'high']]);
  t.deepEqual(spawned.map((s) => [s.model, s.thinking_effort]), [['a', 'low'], ['a-hi', 'high']]);
});

test('rule 3: primary binds the caller own effort, not the pool rules', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[thinking]\neffort = "high"\n[secondary_model]\ndefault_model = "a"\ndefault_effort = "low"\n${MODELS()}` });
  const { spawned, subRequests } = await spawnAll(env, [['c1', { model: 'primary' }]], 1);
  t.is(subRequests[0]!.model, 'fixture-model');
  t.is(subRequests[0]!.body.reasoning_effort, 'high');
  t.is(spawned[0].thinking_effort, 'high');
});

test('the subagent task carries the bound model and effort while it runs', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[secondary_model]\ndefault_model = "a"\ndefault_effort = "high"\n${MODELS()}` });
  env.llm.setScript(agentCalls(['c1', {}]), { kind: 'hang' });
  await prompt(env, 'go');
  const items = await until(async () => {
    const r = (await env.s.get(`/api/v1/sessions/${env.sid}/tasks`)).data.items;
    return r.length ? r : undefined;
  });
  t.like(items[0], { kind: 'subagent', model: 'a', thinking_effort: 'high', parent_tool_call_id: 'c1', status: 'running' });
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`, {});
  await turnEnded(env);
});

// Rule 7: an unusable pool fails session creation, resume and fork with 40001 naming the field.
const BROKEN: Array<{ title: string; toml: string; field: string }> = [
  { title: 'models without default_model', toml: `[secondary_model]\nmodels = { a = "" }\n${MODELS()}`, field: 'secondary_model.default_model' },
  { title: 'default_model not a pool key', toml: `[secondary_model]\ndefault_model = "b"\nmodels = { a = "" }\n${MODELS()}`, field: 'secondary_model.default_model' },
  { title: 'force combined with models', toml: `[secondary_model]\ndefault_model = "a"\nforce = true\nmodels = { a = "" }\n${MODELS()}`, field: 'secondary_model.force' },
  { title: 'force without default_model', toml: `[secondary_model]\nforce = true\n${MODELS()}`, field: 'secondary_model.force' },
  { title: 'primary as a pool key', toml: `[secondary_model]\ndefault_model = "a"\nmodels = { a = "", primary = "" }\n${MODELS()}`, field: 'secondary_model.models.primary' },
  { title: 'a pool key that is not a configured model', toml: `[secondary_model]\ndefault_model = "a"\nmodels = { a = "", ghost = "" }\n${MODELS()}`, field: 'secondary_model.models.ghost' },
  {
    title: 'a pool key whose provider is gone',
    toml: `[secondary_model]\ndefault_model = "a"\nmodels = { a = "", c = "" }\n${MODELS()}\n[models.c]\nprovider = "gone"\nmodel = "model-c"\nmax_context_size = 1000\n`,
    field: 'secondary_model.models.c',
  },
  { title: 'a section default_effort that is no effort level', toml: `[secondary_model]\ndefault_model = "a"\ndefault_effort = "turbo"\n${MODELS()}`, field: 'secondary_model.default_effort' },
  { title: 'a lone default_model that is not a configured model', toml: `[secondary_model]\ndefault_model = "ghost"\n${MODELS()}`, field: 'secondary_model.default_model' },
  {
    title: 'an entry default_effort outside its support_efforts',
    toml: `[secondary_model]\ndefault_model = "a"\nmodels = { a = "", b = "" }\n${MODELS('support_efforts = ["low", "high"]\ndefault_effort = "max"')}`,
    field: 'secondary_model.models.a',
  },
  {
    title: 'an override default_effort outside its support_efforts',
    toml: `[secondary_model]\ndefault_model = "b"\n${MODELS('', 'support_efforts = ["low", "high"]\n[models.b.overrides]\ndefault_effort = "medium"')}`,
    field: 'secondary_model.default_model',
  },
];

for (const c of BROKEN) {
  test(`rule 7: POST /sessions answers 40001 for ${c.title}`, async (t) => {
    const home = await tempHome();
    await writeFile(path.join(home, 'config.toml'), engineConfig('http://127.0.0.1:9', `${YOLO}\n${c.toml}`));
    const s = await startTestServer({ home });
    t.teardown(() => s.stop());
    const r = await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } });
    t.is(r.code, 40001, JSON.stringify(r));
    t.true(Array.isArray(r.details) && r.details.some((d: any) => d.field === c.field), JSON.stringify(r.details));
    t.deepEqual((await s.get('/api/v1/sessions')).data.items, []);
  });
}

test('rule 7: a cold session resumed or forked under a broken pool answers 40001; the section is not rewritten', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const broken = engineConfig(env.llm.url, `${YOLO}\n[secondary_model]\nmodels = { ghost = "" }\n`);
  await writeFile(path.join(env.s.home, 'config.toml'), broken);
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const again = { s: s2, sid: env.sid };
  const r = await prompt(again, 'hello');
  t.is(r.code, 40001);
  t.true(r.details.some((d: any) => d.field === 'secondary_model.default_model'));
  t.true(r.details.some((d: any) => d.field === 'secondary_model.models.ghost'));
  const fork = await s2.post(`/api/v1/sessions/${env.sid}:fork`, {});
  t.is(fork.code, 40001);
  // The reads that resume a cold session (Core status, messages, approvals; Part B skills, terminals) fail the same way.
  for (const tail of ['status', 'messages', 'approvals?status=pending', 'skills', 'terminals']) {
    const got = await s2.get(`/api/v1/sessions/${env.sid}/${tail}`);
    t.is(got.code, 40001, tail);
    t.true(got.details.some((d: any) => d.field === 'secondary_model.models.ghost'), tail);
  }
  // Reads that do not resume still answer.
  t.is((await s2.get(`/api/v1/sessions/${env.sid}`)).code, 0);
  t.is(env.llm.requests.length, 0);
  t.is(await readFile(path.join(env.s.home, 'config.toml'), 'utf8'), broken);
});
