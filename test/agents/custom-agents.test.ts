import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import pino from 'pino';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { writeFiles } from '../helpers/fs.ts';
import { pluginFolder } from '../helpers/plugins.ts';
import { startMcpEngine, stdioServer } from '../helpers/mcp.ts';
import { newSession, startTestServer, tempHome } from '../helpers/server.ts';
import { agentCall, offered, resultOf, say, turnEnded as mainTurnEnded, YOLO } from '../helpers/subagents.ts';

// Custom agents (docs/agents.md): definition files bind as prompt profiles and run as Agent subagent types.

const systemOf = (body: any): string => body.messages.find((m: any) => m.role === 'system')?.content ?? '';

/** A second model alias on the same fixture: a request's `model` says which one a turn ran on. */
const ALT = `
[models.alt]
provider = "fx"
model = "alt-model"
max_context_size = 100000

[models.alt2]
provider = "fx"
model = "alt2-model"
max_context_size = 100000
`;

const agentFile = (o: { name?: string; description?: string; tools?: string; model?: string; body: string }) => [
  '---',
  ...(o.name ? [`name: ${o.name}`] : []),
  ...(o.description ? [`description: ${o.description}`] : []),
  ...(o.tools ? [`tools: ${o.tools}`] : []),
  ...(o.model ? [`model: ${o.model}`] : []),
  '---',
  o.body,
  '',
].join('\n');

const rootOf = (env: EngineEnv) => {
  return env.s.workspaceOf(env.sid).root;
};

async function installPlugin(env: EngineEnv, name: string, files: Record<string, string>): Promise<void> {
  const dir = await pluginFolder({ name });
  await writeFiles(dir, files);
  const r = await env.s.post('/api/v1/plugins', { source: dir });
  if (r.code !== 0) throw new Error(JSON.stringify(r));
}

test('a profile from each source binds its instructions, tools and model; the recorded system prompt stays the base', async (t) => {
  const env = await startEngine(t, { extraToml: `extra_agent_dirs = ["more-agents"]\n${ALT}` });
  const home = env.s.home;
  await installPlugin(env, 'kit', { 'agents/plug.md': agentFile({ description: 'From a plugin', tools: 'Read, Grep', model: 'alt', body: 'PLUGIN-INSTRUCTIONS' }) });
  await writeFiles(home, {
    'more-agents/extra.md': agentFile({ name: 'extra', description: 'From extra dirs', tools: '[Glob]', body: 'EXTRA-INSTRUCTIONS' }),
    'agents/mine.md': agentFile({ name: 'mine', description: 'From the home', model: 'alt2', body: 'USER-INSTRUCTIONS' }),
  });
  await writeFiles(rootOf(env), { '.svc-code/agents/proj.md': agentFile({ name: 'proj', tools: '\n  - Read\n  - Bash', model: 'alt', body: 'PROJECT-INSTRUCTIONS' }) });
  const cases = [
    { profile: 'extra', text: 'EXTRA-INSTRUCTIONS', tools: ['Glob'], model: 'fixture-model' },
    { profile: 'plug', text: 'PLUGIN-INSTRUCTIONS', tools: ['Grep', 'Read'], model: 'alt-model' },
    { profile: 'mine', text: 'USER-INSTRUCTIONS', tools: undefined, model: 'alt2-model' },
    { profile: 'proj', text: 'PROJECT-INSTRUCTIONS', tools: ['Bash', 'Read'], model: 'alt-model' },
    // A built-in subagent type binds too: its tools, no instructions; the model bound last (proj's) sticks.
    { profile: 'explore', text: undefined, tools: ['Glob', 'Grep', 'Read', 'WebFetch'], model: 'alt-model' },
  ];
  for (const [i, c] of cases.entries()) {
    env.llm.setScript(scripts.helloText);
    const r = await prompt(env, { content: [{ type: 'text', text: `run ${c.profile}` }], profile: c.profile });
    t.is(r.code, 0, JSON.stringify(r));
    await turnEnded(env, i + 1);
    const body = env.llm.requests[i]!.body;
    const sys = systemOf(body);
    for (const other of cases) if (other.text && other !== c) t.false(sys.includes(other.text), `${c.profile} without ${other.profile}'s text`);
    if (c.text) t.true(sys.includes(c.text), c.profile);
    if (c.tools) t.deepEqual(offered(body).sort(), c.tools, c.profile);
    else t.true(offered(body).includes('Agent') && offered(body).includes('Write'), c.profile);
    t.is(body.model, c.model, c.profile);
  }
  const recorded = (await journal(env)).filter((e) => e.type === 'system_prompt.recorded');
  t.is(recorded.length, 1);
  for (const c of cases) if (c.text) t.false(recorded[0]!.payload.text.includes(c.text));
});

test('a bound profile sticks for later prompts; `default` unbinds it; an unknown model alias falls back to the session model', async (t) => {
  const env = await startEngine(t, { extraToml: ALT });
  await writeFiles(env.s.home, { 'agents/rev.md': agentFile({ name: 'rev', description: 'Reviews', tools: 'Read', model: 'sonnet', body: 'REVIEW-ONLY' }) });
  env.llm.setScript(scripts.helloText, scripts.helloText, scripts.helloText);
  await prompt(env, { content: [{ type: 'text', text: 'one' }], profile: 'rev' });
  await turnEnded(env, 1);
  await prompt(env, 'two');
  await turnEnded(env, 2);
  await prompt(env, { content: [{ type: 'text', text: 'three' }], profile: 'default' });
  await turnEnded(env, 3);
  const [one, two, three] = env.llm.requests.map((r) => r.body);
  for (const b of [one, two]) {
    t.true(systemOf(b).includes('REVIEW-ONLY'));
    t.deepEqual(offered(b), ['Read']);
    t.is(b.model, 'fixture-model');
  }
  t.false(systemOf(three).includes('REVIEW-ONLY'));
  t.true(offered(three).includes('Write'));
  const bound = (await journal(env)).filter((e) => e.type === 'session.profile_updated').map((e) => e.payload.agent_config.profile);
  t.deepEqual(bound, ['rev', 'default']);
});

test('precedence on a name clash: workspace > home > extra_agent_dirs > plugin > built-in; removing the winner shows the next', async (t) => {
  const extra = 'extra-agents';
  const env = await startEngine(t, { extraToml: `extra_agent_dirs = ["${extra}"]` });
  const home = env.s.home;
  const def = (who: string) => agentFile({ name: 'explore', description: who, body: `FROM-${who}` });
  await installPlugin(env, 'kit', { 'agents/explore.md': def('PLUGIN') });
  await writeFiles(home, { [`${extra}/explore.md`]: def('EXTRA'), 'agents/explore.md': def('USER') });
  await writeFiles(rootOf(env), { '.svc-code/agents/x.md': def('PROJECT') });
  const order = [
    ['PROJECT', path.join(rootOf(env), '.svc-code/agents/x.md')],
    ['USER', path.join(home, 'agents/explore.md')],
    ['EXTRA', path.join(home, extra, 'explore.md')],
    ['PLUGIN', undefined],
  ] as const;
  let n = 0;
  for (const [who, file] of order) {
    env.llm.setScript(scripts.helloText);
    await prompt(env, { content: [{ type: 'text', text: who }], profile: 'explore' });
    await turnEnded(env, ++n);
    const sys = systemOf(env.llm.requests[n - 1]!.body);
    t.true(sys.includes(`FROM-${who}`), who);
    for (const [other] of order) if (other !== who) t.false(sys.includes(`FROM-${other}`), `${who} over ${other}`);
    // A custom `explore` replaces the built-in's tools as well: no `tools` line = every tool.
    t.true(offered(env.llm.requests[n - 1]!.body).includes('Write'));
    if (file) await rm(file);
  }
});

test('an unknown profile is 40001 naming the field and the known profiles; a bad file is skipped, never a crash', async (t) => {
  const env = await startEngine(t);
  await writeFiles(env.s.home, {
    'agents/good.md': agentFile({ name: 'good', body: 'GOOD' }),
    'agents/broken.md': '---\nname: [unclosed\n---\nbody\n',
    'agents/huge.md': agentFile({ name: 'huge', body: 'x'.repeat(70_000) }),
    'agents/badtools.md': '---\nname: badtools\ntools: 42\n---\nbody\n',
    'agents/default.md': agentFile({ body: 'reserved name' }),
  });
  const r = await prompt(env, { content: [{ type: 'text', text: 'hi' }], profile: 'nosuch' });
  t.is(r.code, 40001);
  t.is(r.details[0].field, 'profile');
  t.deepEqual(r.details[0].known_profiles, ['default', 'explore', 'general-purpose', 'good']);
  t.regex(r.msg, /unknown profile: nosuch/);
  for (const bad of ['broken', 'huge', 'badtools']) t.is((await prompt(env, { content: [{ type: 'text', text: 'hi' }], profile: bad })).code, 40001, bad);
  t.false((await journal(env)).some((e) => e.type === 'prompt.accepted'), 'nothing accepted');
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'hi' }], profile: 'good' })).code, 0);
  await turnEnded(env);
  t.true(systemOf(env.llm.requests[0]!.body).includes('GOOD'));
});

test('a disabled plugin\'s agents disappear; enabling it brings them back', async (t) => {
  const env = await startEngine(t);
  await installPlugin(env, 'kit', { 'agents/helper.md': agentFile({ name: 'helper', body: 'HELPER' }) });
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'a' }], profile: 'helper' })).code, 0);
  await turnEnded(env);
  t.is((await env.s.post('/api/v1/plugins/kit:disable')).code, 0);
  const r = await prompt(env, { content: [{ type: 'text', text: 'b' }], profile: 'helper' });
  t.is(r.code, 40001);
  t.false(r.details[0].known_profiles.includes('helper'));
  t.is((await env.s.post('/api/v1/plugins/kit:enable')).code, 0);
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'c' }], profile: 'helper' })).code, 0);
  await turnEnded(env, 2);
  t.true(systemOf(env.llm.requests[1]!.body).includes('HELPER'));
});

test('the Agent tool lists custom agents and runs one with its instructions, tools and model; an unknown type lists the valid ones', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n${ALT}` });
  await writeFiles(rootOf(env), {
    '.svc-code/agents/auditor.md': agentFile({ name: 'auditor', description: '"Audits dependencies\\nsecond line not listed"', tools: 'Read, Grep, Agent', model: 'alt', body: 'AUDIT-STEPS' }),
  });
  env.llm.setScript(
    agentCall('c1', { description: 'audit', prompt: 'Audit it.', subagent_type: 'auditor' }), say('audited'),
    agentCall('c2', { description: 'x', prompt: 'y', subagent_type: 'wizard' }), say('done'),
  );
  await prompt(env, 'go');
  await mainTurnEnded(env);
  const [main1, sub] = env.llm.requests.map((r) => r.body);
  const agentTool = main1.tools.find((x: any) => x.function.name === 'Agent');
  const typeDoc: string = agentTool.function.parameters.properties.subagent_type.description;
  t.true(typeDoc.includes('auditor (Audits dependencies)'), typeDoc);
  t.false(typeDoc.includes('second line'));
  t.true(typeDoc.includes('general-purpose'));
  t.true(systemOf(sub).includes('AUDIT-STEPS'));
  t.regex(systemOf(sub), /You are running as a subagent/);
  // Agent stays excluded for a subagent even when its definition lists it.
  t.deepEqual(offered(sub).sort(), ['Grep', 'Read']);
  t.is(sub.model, 'alt-model');
  t.is((await resultOf(env, 'c1')).content, 'audited');
  const spawned = (await journal(env)).find((e) => e.type === 'subagent.spawned')!.payload;
  t.like(spawned, { subagent_type: 'auditor', model: 'alt' });
  const bad = await resultOf(env, 'c2');
  t.true(bad.is_error);
  t.regex(bad.content, /unknown subagent_type "wizard"; choose one of: auditor, explore, general-purpose/);
});

test('a profile\'s tools take MCP globs as [tools] does: mcp__server__* offers that server\'s tools', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const env = await startMcpEngine(t, { fx: stdioServer() }, YOLO);
  await writeFiles(env.home, { 'agents/mcp-only.md': agentFile({ name: 'mcp-only', tools: 'Read, mcp__fx__*', body: 'MCP' }) });
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'go' }], profile: 'mcp-only' })).code, 0);
  await turnEnded(env, 1, 120_000);
  const names = offered(env.llm.requests[0]!.body);
  t.true(names.includes('Read'));
  t.true(names.includes('mcp__fx__echo'));
  t.deepEqual(names.filter((n) => n !== 'Read' && !n.startsWith('mcp__fx__')), []);
});

test('each bad definition is logged once with its path; an unknown model alias and unknown tool names are warned about', async (t) => {
  const lines: any[] = [];
  const log = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), 'auto_session_title = false\n');
  await writeFiles(home, {
    'agents/broken.md': '---\nname: [unclosed\n---\nbody\n',
    'agents/huge.md': agentFile({ name: 'huge', body: 'x'.repeat(70_000) }),
    'agents/odd.md': agentFile({ name: 'odd', tools: 'Read, Teleport', model: 'sonnet', body: 'ODD' }),
  });
  const s = await startTestServer({ home, log });
  t.teardown(() => s.stop());
  const sid = await newSession(s);
  for (let i = 0; i < 2; i++) await s.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'x' }], profile: 'nosuch' });
  const about = (file: string) => lines.filter((l) => l.path === path.join(home, 'agents', file));
  t.is(about('broken.md').length, 1);
  t.regex(about('broken.md')[0].msg, /ignored: malformed front matter/);
  t.regex(about('huge.md')[0].msg, /over the 65536-byte limit/);
  t.deepEqual(about('odd.md').map((l) => l.tools).filter(Boolean), [['Teleport']]);
  // The model is checked when the agent is used (the config may change): no model is configured here, so binding odd
  // fails on the model like any prompt, after the warning.
  await s.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'x' }], profile: 'odd' });
  t.true(about('odd.md').some((l) => /model "sonnet" is not a configured \[models\] alias/.test(l.msg)));
});
