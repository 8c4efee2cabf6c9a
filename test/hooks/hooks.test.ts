import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { pluginFolder } from '../helpers/plugins.ts';
import { until } from '../helpers/wait.ts';
import { startMcpEngine, stdioServer } from '../helpers/mcp.ts';

const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;
const hookRuns = async (env: Pick<EngineEnv, 's' | 'sid'>) => (await journal(env)).filter((e) => e.type === 'hook.result').map((e) => e.payload);
const toml = (s: string) => JSON.stringify(s);

/** `[[hooks]]` tables. */
function hooks(list: Array<{ event: string; matcher?: string; command: string; timeout?: number }>): string {
  return list.map((h) => `[[hooks]]\nevent = "${h.event}"\n${h.matcher ? `matcher = ${toml(h.matcher)}\n` : ''}command = ${toml(h.command)}\n${h.timeout ? `timeout = ${h.timeout}\n` : ''}`).join('\n');
}

test('PreToolUse deny: the call never runs, the model reads the reason, the hook got the call as JSON on stdin; the run is journaled', async (t) => {
  const dir = await tempDir();
  const env = await startEngine(t, {
    extraToml: `default_permission_mode = "yolo"\n${hooks([
      { event: 'PreToolUse', matcher: 'Edit|Bash', command: `cat > ${dir}/pre.json; echo '{"decision":"deny","reason":"no shell today"}'` },
      { event: 'PreToolUse', matcher: 'mcp__*', command: `touch ${dir}/mcp-hook-ran` },
    ])}`,
  });
  env.llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'touch made-it' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'run it')).code, 0);
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  await t.throwsAsync(readFile(path.join(cwdOf(env), 'made-it')));
  await t.throwsAsync(readFile(path.join(dir, 'mcp-hook-ran')), undefined, 'a matcher on mcp__* does not fire for Bash');
  const input = JSON.parse(await readFile(path.join(dir, 'pre.json'), 'utf8'));
  t.like(input, { hook_event_name: 'PreToolUse', session_id: env.sid, tool_name: 'Bash', tool_input: { command: 'touch made-it' }, tool_call_id: 'b1', cwd: cwdOf(env) });
  const result = (await journal(env)).find((e) => e.type === 'tool.result')!;
  t.true(result.payload.is_error);
  t.regex(result.payload.content, /denied by a PreToolUse hook: no shell today/);
  t.regex(JSON.stringify(env.llm.requests[1].body), /no shell today/, 'the model sees the reason');
  const pre = (await hookRuns(env)).find((h) => h.hook_event === 'PreToolUse');
  t.like(pre, { outcome: 'blocked', decision: 'deny', reason: 'no shell today', tool_name: 'Bash', tool_call_id: 'b1', origin: 'config', matcher: 'Edit|Bash', exit_code: 0 });
});

test('PreToolUse ask makes yolo ask; exit code 2 denies with stderr as the reason', async (t) => {
  const env = await startEngine(t, {
    extraToml: `default_permission_mode = "yolo"\n${hooks([
      { event: 'PreToolUse', matcher: 'Write', command: `echo '{"decision":"ask","reason":"check writes"}'` },
      { event: 'PreToolUse', matcher: 'Bash', command: 'echo "exit two says no" >&2; exit 2' },
    ])}`,
  });
  env.llm.setScript({ events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'hi\n' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'write it')).code, 0);
  const approval = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000);
  t.is(approval.tool_name, 'Write');
  await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${approval.approval_id}`, { decision: 'approved' });
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  t.is(await readFile(path.join(cwdOf(env), 'out.txt'), 'utf8'), 'hi\n');

  env.llm.setScript({ events: [{ tool_call: { id: 'b2', name: 'Bash', args: { command: 'touch made-it' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'run it')).code, 0);
  t.is((await turnEnded(env, 2, 30_000)).payload.reason, 'completed');
  await t.throwsAsync(readFile(path.join(cwdOf(env), 'made-it')));
  const bash = (await journal(env)).filter((e) => e.type === 'tool.result').at(-1)!;
  t.regex(bash.payload.content, /exit two says no/);
  t.like((await hookRuns(env)).at(-1), { hook_event: 'PreToolUse', outcome: 'blocked', decision: 'deny', exit_code: 2 });
});

test('PreToolUse allow skips manual mode\'s approval', async (t) => {
  const env = await startEngine(t, {
    extraToml: `default_permission_mode = "manual"\n${hooks([{ event: 'PreToolUse', matcher: 'Wr*', command: `echo '{"decision":"allow"}'` }])}`,
  });
  env.llm.setScript({ events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'ok\n' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'write it')).code, 0);
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  t.is(await readFile(path.join(cwdOf(env), 'out.txt'), 'utf8'), 'ok\n');
  t.deepEqual((await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items, []);
});

test('a hook that times out, crashes or answers garbage never wedges the turn; PostToolUse block adds its reason; UserPromptSubmit, Stop and SessionStart run', async (t) => {
  const dir = await tempDir();
  const env = await startEngine(t, {
    extraToml: `default_permission_mode = "yolo"\n${hooks([
      { event: 'SessionStart', command: `cat > ${dir}/start.json` },
      { event: 'UserPromptSubmit', command: `cat > ${dir}/prompt.json` },
      { event: 'PreToolUse', command: 'sleep 600', timeout: 0.3 },
      { event: 'PreToolUse', command: 'kill -9 $$' },
      { event: 'PreToolUse', command: 'echo not-json' },
      { event: 'PostToolUse', matcher: 'Bash', command: `cat > ${dir}/post.json; echo '{"decision":"block","reason":"lint failed"}'` },
      { event: 'Stop', command: `cat > ${dir}/stop.json` },
    ])}`,
  });
  env.llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'echo ran > ran.txt' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'go on')).code, 0);
  // The sleeping hook was cut at its timeout: the turn ends well inside the hook's 600 s (however busy the machine),
  // and the run is recorded as timed out (below).
  t.is((await turnEnded(env, 1)).payload.reason, 'completed');
  t.is(await readFile(path.join(cwdOf(env), 'ran.txt'), 'utf8'), 'ran\n');
  const result = (await journal(env)).find((e) => e.type === 'tool.result')!;
  t.regex(result.payload.content, /\[PostToolUse hook\] lint failed/);
  t.like(JSON.parse(await readFile(path.join(dir, 'post.json'), 'utf8')), { tool_name: 'Bash', tool_response: { is_error: false } });
  t.like(JSON.parse(await readFile(path.join(dir, 'prompt.json'), 'utf8')), { hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
  t.like(JSON.parse(await readFile(path.join(dir, 'start.json'), 'utf8')), { hook_event_name: 'SessionStart', source: 'startup' });
  const runs = (await until(async () => {
    const r = await hookRuns(env);
    return r.some((h) => h.hook_event === 'Stop') ? r : undefined;
  }, 30_000))!;
  t.like(JSON.parse(await readFile(path.join(dir, 'stop.json'), 'utf8')), { hook_event_name: 'Stop', reason: 'completed' });
  const pre = runs.filter((h: any) => h.hook_event === 'PreToolUse').map((h: any) => h.outcome);
  t.deepEqual(pre, ['timed_out', 'error', 'error']);
  t.deepEqual(runs.map((h: any) => h.hook_event).sort(), ['PostToolUse', 'PreToolUse', 'PreToolUse', 'PreToolUse', 'SessionStart', 'Stop', 'UserPromptSubmit']);
  // Each run is a `hook` marker in the agent's transcript (the same fold emits its marker.upsert op; see the fold-equivalence test).
  const tr = await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main&page_size=50`);
  const markers = tr.data.items.filter((i: any) => i.kind === 'marker' && i.marker === 'hook');
  t.deepEqual(markers.map((m: any) => m.payload.hookEvent).sort(), runs.map((h: any) => h.hook_event).sort());
  t.like(markers.find((m: any) => m.payload.hookEvent === 'PreToolUse' && m.payload.outcome === 'timed_out'), { payload: { origin: 'config' } });
});

test('UserPromptSubmit exit 2 blocks the prompt: the turn fails before any model request; plugin hooks join and stop with the plugin', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"\n' + hooks([{ event: 'UserPromptSubmit', command: 'grep -q forbidden && { echo "forbidden word" >&2; exit 2; }; exit 0' }]) });
  t.is((await prompt(env, 'say the forbidden thing')).code, 0);
  const ended = await turnEnded(env, 1, 30_000);
  t.is(ended.payload.reason, 'failed');
  t.like(ended.payload.error, { kind: 'hook_blocked' });
  t.regex(ended.payload.error.message, /forbidden word/);
  t.is(env.llm.requests.length, 0);

  const src = await pluginFolder({ name: 'guard', hooks: [{ event: 'PreToolUse', matcher: 'Bash', command: 'echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"plugin says no from $SVC_CODE_PLUGIN_ROOT\\"}"' }] });
  const installed = await env.s.post('/api/v1/plugins', { source: src });
  t.is(installed.data.hookCount, 1);
  env.llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'true' } } }] }, scripts.helloText);
  await prompt(env, 'run');
  await turnEnded(env, 2, 30_000);
  const denied = (await journal(env)).filter((e) => e.type === 'tool.result').at(-1)!;
  t.regex(denied.payload.content, /plugin says no from .*plugins\/guard/);
  t.like((await hookRuns(env)).at(-1), { origin: 'plugin:guard', decision: 'deny' });

  await env.s.post('/api/v1/plugins/guard:disable');
  env.llm.setScript({ events: [{ tool_call: { id: 'b2', name: 'Bash', args: { command: 'true' } } }] }, scripts.helloText);
  await prompt(env, 'run again');
  await turnEnded(env, 3, 30_000);
  t.false((await journal(env)).filter((e) => e.type === 'tool.result').at(-1)!.payload.is_error, 'a disabled plugin\'s hook does not run');
});

test('matchers on MCP tool names: mcp__fx__* denies the echo tool; a glob on another server does not fire', async (t) => {
  const dir = await tempDir();
  const env = await startMcpEngine(t, { fx: stdioServer() }, `default_permission_mode = "yolo"\n${hooks([
    { event: 'PreToolUse', matcher: 'mcp__other__*', command: `touch ${dir}/other-ran` },
    { event: 'PreToolUse', matcher: 'Read|mcp__fx__*', command: `echo '{"decision":"deny","reason":"no MCP today"}'` },
  ])}`);
  env.llm.setScript({ events: [{ tool_call: { id: 'm1', name: 'mcp__fx__echo', args: { text: 'hi' } } }] }, scripts.helloText);
  t.is((await prompt(env, 'echo')).code, 0);
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  const result = (await journal(env)).find((e) => e.type === 'tool.result')!;
  t.like(result.payload, { tool_name: 'mcp__fx__echo', is_error: true });
  t.regex(result.payload.content, /no MCP today/);
  await t.throwsAsync(readFile(path.join(dir, 'other-ran')));
  t.like((await hookRuns(env)).find((h) => h.hook_event === 'PreToolUse'), { tool_name: 'mcp__fx__echo', matcher: 'Read|mcp__fx__*', decision: 'deny' });
});
