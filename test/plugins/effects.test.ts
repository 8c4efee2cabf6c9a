import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { alive, pidsIn, stdioServer } from '../helpers/mcp.ts';
import { pluginFolder } from '../helpers/plugins.ts';
import { until } from '../helpers/wait.ts';

// An installed plugin's parts take effect in live sessions, and leave them when it is disabled (docs/plugins.md).

/** The user messages of the fixture's nth request, as text. */
function userText(env: EngineEnv, i: number): string {
  const messages: any[] = env.llm.requests[i]!.body.messages;
  return messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}
const offered = (env: EngineEnv, i: number): string[] => (env.llm.requests[i]!.body.tools ?? []).map((x: any) => x.function.name);
const skills = async (env: EngineEnv) => (await env.s.get(`/api/v1/sessions/${env.sid}/skills`)).data.skills as any[];
const activate = (env: EngineEnv, name: string, body: Record<string, unknown> = {}) => env.s.post(`/api/v1/sessions/${env.sid}/skills/${name}:activate`, body);

/** A plugin with two commands: `deploy` (frontmatter, `$ARGUMENTS`) and `lint` (no frontmatter, no placeholder). */
async function commandPlugin(): Promise<string> {
  const dir = await pluginFolder({ name: 'toolbox' });
  await mkdir(path.join(dir, 'commands'), { recursive: true });
  await writeFile(path.join(dir, 'commands', 'deploy.md'), '---\ndescription: Deploy the app\n---\nDEPLOY-BODY to $ARGUMENTS now, then report on $ARGUMENTS.\n');
  await writeFile(path.join(dir, 'commands', 'lint.md'), 'Lint everything (LINT-BODY).\n');
  return dir;
}

test('commands: listed as type command, :activate runs a turn with $ARGUMENTS substituted and journals plugin_command.activated; disable hides, enable restores, remove deletes', async (t) => {
  const env = await startEngine(t);
  t.is((await env.s.post('/api/v1/plugins', { source: await commandPlugin() })).data.commandCount, 2);
  const deploy = (await skills(env)).find((k) => k.name === 'toolbox:deploy');
  t.like(deploy, { source: 'plugin', type: 'command', description: 'Deploy the app', disable_model_invocation: true });
  t.regex(deploy.path, /plugins\/toolbox\/commands\/deploy\.md$/);
  t.like((await skills(env)).find((k) => k.name === 'toolbox:lint'), { type: 'command', description: 'Lint everything (LINT-BODY).' });

  env.llm.setScript(scripts.helloText);
  const r = await activate(env, 'toolbox:deploy', { args: 'staging' });
  t.deepEqual(r.data, { activated: true, skill_name: 'toolbox:deploy' }, JSON.stringify(r));
  await turnEnded(env);
  const sent = userText(env, 0);
  t.true(sent.includes('DEPLOY-BODY to staging now, then report on staging.'), sent);
  t.false(sent.includes('$ARGUMENTS'));
  const events = await journal(env);
  const ev = events.find((e) => e.type === 'plugin_command.activated');
  t.like(ev?.payload, { agent_id: 'main', plugin_id: 'toolbox', command_name: 'deploy', args: 'staging' });
  t.is(ev!.payload.prompt_id, events.find((e) => e.type === 'prompt.accepted')!.payload.prompt_id);
  t.truthy(env.ws.frames.find((f) => f.type === 'plugin_command.activated' && f.session_id === env.sid), 'subscribers hear it');
  t.false(events.some((e) => e.type === 'skill.activated'), 'a command is not a skill activation');
  // The transcript says a plugin command started the turn; the command's text is not the user's prompt.
  const [turn] = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data.items;
  t.deepEqual(turn.origin, { kind: 'user', payload: { kind: 'plugin_command', trigger: 'user-slash', pluginId: 'toolbox', commandName: 'deploy', commandArgs: 'staging' } });
  t.is(turn.prompt, '');
  const [um] = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript/user-messages?agent_id=main`)).data.agents[0].messages;
  t.like(um, { origin: 'plugin_command', prompt: '', state: 'completed' });

  // Without a placeholder the args follow the body; with none, the body alone.
  env.llm.setScript(scripts.helloText);
  t.is((await activate(env, 'toolbox:lint', { args: 'src/' })).code, 0);
  await turnEnded(env, 2);
  t.regex(userText(env, 1), /LINT-BODY[\s\S]*ARGUMENTS: src\//);

  // A bundled activation through POST /prompts runs the command too.
  env.llm.setScript(scripts.helloText);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'AND-THIS' }], skills: [{ name: 'toolbox:deploy', args: 'prod' }] })).code, 0);
  await turnEnded(env, 3);
  t.regex(userText(env, 2), /DEPLOY-BODY to prod now[\s\S]*AND-THIS/);

  t.is((await env.s.post('/api/v1/plugins/toolbox:disable')).code, 0);
  t.false((await skills(env)).some((k) => k.name.startsWith('toolbox:')), 'a disabled plugin lists no command');
  const gone = await activate(env, 'toolbox:deploy');
  t.is(gone.code, 40415);
  t.is(gone.details.skill_name, 'toolbox:deploy');
  t.is((await env.s.post('/api/v1/plugins/toolbox:enable')).code, 0);
  t.truthy((await skills(env)).find((k) => k.name === 'toolbox:deploy'));
  t.is((await env.s.post('/api/v1/plugins/toolbox:remove')).code, 0);
  t.is((await activate(env, 'toolbox:deploy')).code, 40415);
  t.is(env.llm.requests.length, 3);
});

test('commands are user-only: the model\'s Skill tool does not load one', async (t) => {
  const env = await startEngine(t);
  await env.s.post('/api/v1/plugins', { source: await commandPlugin() });
  env.llm.setScript({ events: [{ tool_call: { id: 'k1', name: 'Skill', args: { skill: 'toolbox:deploy' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'go')).code, 0);
  await turnEnded(env);
  const result = (await journal(env)).find((e) => e.type === 'tool.result')!.payload;
  t.true(result.is_error);
  t.regex(result.content, /Unknown skill: toolbox:deploy/);
});

test('skills: a plugin skill is user-activatable and the model loads it; disabled, neither', async (t) => {
  const env = await startEngine(t);
  await env.s.post('/api/v1/plugins', { source: await pluginFolder({ name: 'kit', skill: 'kit-skill' }) });
  env.llm.setScript(scripts.helloText);
  t.is((await activate(env, 'kit-skill', { args: 'ARG-1' })).code, 0);
  await turnEnded(env);
  t.regex(userText(env, 0), /Do the kit-skill thing\.[\s\S]*ARG-1/);
  t.like((await journal(env)).find((e) => e.type === 'skill.activated')?.payload, { skill_name: 'kit-skill', source: 'plugin' });

  env.llm.setScript({ events: [{ tool_call: { id: 'k1', name: 'Skill', args: { skill: 'kit-skill' } } }] }, scripts.helloText);
  await prompt(env, 'load it');
  await turnEnded(env, 2);
  const loaded = (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'k1')!.payload;
  t.false(loaded.is_error);
  t.regex(loaded.content, /Do the kit-skill thing/);

  await env.s.post('/api/v1/plugins/kit:disable');
  t.is((await activate(env, 'kit-skill')).code, 40415);
  env.llm.setScript({ events: [{ tool_call: { id: 'k2', name: 'Skill', args: { skill: 'kit-skill' } } }] }, scripts.helloText);
  await prompt(env, 'load it again');
  await turnEnded(env, 3);
  t.true((await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'k2')!.payload.is_error);
});

test('hooks and MCP servers: offered to the model (and GET /tools) while enabled; disable removes the tools, stops the child and the hook; enable brings both back; remove deletes them', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[mcp]\nstartup_timeout_ms = 120000\n` });
  const pidFile = path.join(await tempDir(), 'pids');
  const src = await pluginFolder({
    name: 'ops', mcpServers: { opsdocs: stdioServer({ MCP_FIXTURE_PID_FILE: pidFile }) },
    hooks: [{ event: 'PreToolUse', matcher: 'Bash', command: 'echo \'{"decision":"deny","reason":"ops plugin says no"}\'' }],
  });
  t.is((await env.s.post('/api/v1/plugins', { source: src })).code, 0);
  const bash = (id: string) => ({ events: [{ tool_call: { id, name: 'Bash', args: { command: 'true' } } }] });
  const bashResult = async (id: string) => (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)!.payload;

  env.llm.setScript(bash('b1'), scripts.helloText);
  await prompt(env, 'one');
  await turnEnded(env, 1, 120_000);
  t.true(offered(env, 0).includes('mcp__opsdocs__echo'), offered(env, 0).join(','));
  t.like(await bashResult('b1'), { is_error: true });
  t.regex((await bashResult('b1')).content, /ops plugin says no/);
  const [pid] = await pidsIn(pidFile);
  t.true(pid !== undefined && alive(pid));
  const tools = async () => ((await env.s.get(`/api/v1/tools?session_id=${env.sid}`)).data.tools as any[]).filter((x) => x.name.startsWith('mcp__opsdocs__'));
  t.like((await tools()).find((x) => x.name === 'mcp__opsdocs__echo'), { source: 'mcp', mcp_server_id: 'opsdocs' });

  // The next prompt follows the change at once: its turn must already see it.
  t.is((await env.s.post('/api/v1/plugins/ops:disable')).code, 0);
  env.llm.setScript(bash('b2'), scripts.helloText);
  await prompt(env, 'two');
  await turnEnded(env, 2, 120_000);
  await until(() => !alive(pid!), 30_000, 'the plugin\'s MCP child stopped');
  const n = env.llm.requests.length;
  t.false(offered(env, n - 2).includes('mcp__opsdocs__echo'), 'a disabled plugin offers no MCP tool');
  t.false((await bashResult('b2')).is_error, 'a disabled plugin\'s hook does not run');

  t.is((await env.s.post('/api/v1/plugins/ops:enable')).code, 0);
  env.llm.setScript(bash('b3'), scripts.helloText);
  await prompt(env, 'three');
  await turnEnded(env, 3, 120_000);
  t.true(offered(env, env.llm.requests.length - 2).includes('mcp__opsdocs__echo'), 'enabled again: offered again');
  t.true((await bashResult('b3')).is_error, 'enabled again: the hook blocks again');
  const [pid2] = (await pidsIn(pidFile)).slice(1);
  t.true(pid2 !== undefined && alive(pid2), 'enabled again: a new child');

  t.is((await env.s.post('/api/v1/plugins/ops:remove')).code, 0);
  env.llm.setScript(bash('b4'), scripts.helloText);
  await prompt(env, 'four');
  await turnEnded(env, 4, 120_000);
  t.false(offered(env, env.llm.requests.length - 2).includes('mcp__opsdocs__echo'), 'removed: not offered');
  t.false((await bashResult('b4')).is_error, 'removed: the hook is gone');
  await until(() => !alive(pid2!), 30_000, 'the removed plugin\'s MCP child stopped');
  t.deepEqual(await tools(), []);
});
