import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { startHttpMcp } from '../../fixtures/mcp/servers.mjs';
import { journal, prompt, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { alive, pidsIn, serverStatus, startMcpEngine, stdioServer } from '../helpers/mcp.ts';
import { newSession } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// Background reconnects of remote servers every 100 ms, doubling (read when the daemon starts).
process.env.SVC_MCP_RECONNECT_BASE_MS = '100';

const call = (id: string, name: string, args: unknown = {}) => ({ events: [{ tool_call: { id, name, args } }] });
const resultOf = async (env: Pick<EngineEnv, 's' | 'sid'>, id: string) => (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)?.payload;
const offered = (env: EngineEnv, n: number): string[] => env.llm.requests[n]!.body.tools.map((x: any) => x.function.name);
const mcpOf = (env: EngineEnv) => env.s.mcp;

test('reading sessions starts no server; a turn starts its session\'s servers only', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const pidFile = path.join(await tempDir(), 'pids');
  const env = await startMcpEngine(t, { fx: stdioServer({ MCP_FIXTURE_PID_FILE: pidFile }) }, YOLO);
  const others = [await newSession(env.s), await newSession(env.s)];
  for (const sid of [env.sid, ...others]) {
    t.is((await env.s.get(`/api/v1/sessions/${sid}/status`)).code, 0);
    t.is((await env.s.get(`/api/v1/sessions/${sid}/messages`)).code, 0);
  }
  t.like((await env.s.get('/api/v1/mcp/servers')).data.servers[0], { name: 'fx', status: 'disconnected', tool_count: 0 });
  env.llm.setScript(call('e1', 'mcp__fx__echo', { text: 'x' }), scripts.helloText);
  t.is((await prompt(env, 'go')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.like(await resultOf(env, 'e1'), { is_error: false, content: 'echo: x' });
  t.is((await pidsIn(pidFile)).length, 1, 'one child: the prompted session\'s');
  for (const sid of others) t.deepEqual(mcpOf(env).pids(sid), []);
  t.deepEqual(mcpOf(env).pids(env.sid), await pidsIn(pidFile));
});

test('v2 writes reach a live session: POST adds (offered next turn), PUT restarts with the new entry, DELETE disconnects; :restart uses the current entry', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const dir = await tempDir();
  const fxPids = path.join(dir, 'fx');
  const gxPids = path.join(dir, 'gx');
  const env = await startMcpEngine(t, { fx: stdioServer({ MCP_FIXTURE_PID_FILE: fxPids }) }, YOLO);
  env.llm.setScript(call('e1', 'mcp__fx__echo', { text: 'x' }), scripts.helloText);
  t.is((await prompt(env, 'one')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  const [fxPid] = await pidsIn(fxPids);

  t.is((await env.s.post('/api/v2/mcp/servers', { name: 'gx', ...stdioServer({ MCP_FIXTURE_PID_FILE: gxPids, TAG: 'first' }) })).code, 0);
  await serverStatus(env.s, 'gx', ['connected'], 120_000);
  env.llm.setScript(call('g1', 'mcp__gx__env', { name: 'TAG' }), scripts.helloText);
  t.is((await prompt(env, 'two')).code, 0);
  t.is((await turnEnded(env, 2, 120_000)).payload.reason, 'completed');
  t.true(offered(env, 2).includes('mcp__gx__env'));
  t.like(await resultOf(env, 'g1'), { is_error: false, content: 'first' });

  t.is((await env.s.req('PUT', '/api/v2/mcp/servers/gx', stdioServer({ MCP_FIXTURE_PID_FILE: gxPids, TAG: 'second' }))).body.code, 0);
  await until(async () => (await pidsIn(gxPids)).length === 2, 120_000, 'gx restarted');
  t.false(alive((await pidsIn(gxPids))[0]!), 'the old child ended');

  const del = await env.s.req('DELETE', '/api/v2/mcp/servers/fx');
  t.is(del.body.code, 0);
  await until(() => !alive(fxPid!), 30_000, 'fx disconnected');
  t.false((await env.s.get('/api/v1/mcp/servers')).data.servers.some((x: any) => x.name === 'fx'));
  t.is((await env.s.post('/api/v1/mcp/servers/fx:restart')).code, 40408, 'a deleted server is not started again');

  // A file edit behind the routes' back, then :restart: the current entry runs.
  const { writeMcpFile } = await import('../helpers/mcp.ts');
  await writeMcpFile(path.join(env.home, 'mcp.json'), { gx: stdioServer({ MCP_FIXTURE_PID_FILE: gxPids, TAG: 'third' }) });
  t.is((await env.s.post('/api/v1/mcp/servers/gx:restart')).code, 0);
  await serverStatus(env.s, 'gx', ['connected'], 120_000);
  env.llm.setScript(call('g2', 'mcp__gx__env', { name: 'TAG' }), scripts.helloText);
  t.is((await prompt(env, 'three')).code, 0);
  t.is((await turnEnded(env, 3, 120_000)).payload.reason, 'completed');
  t.false(offered(env, 4).includes('mcp__fx__echo'));
  t.like(await resultOf(env, 'g2'), { is_error: false, content: 'third' });
});

test(':restart reaches every live session that runs the server', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const pidFile = path.join(await tempDir(), 'pids');
  const env = await startMcpEngine(t, { fx: stdioServer({ MCP_FIXTURE_PID_FILE: pidFile }) }, YOLO);
  const second = { ...env, sid: await newSession(env.s) };
  await env.ws.request('subscribe', { session_ids: [second.sid] });
  env.llm.setScript(scripts.helloText, scripts.helloText);
  t.is((await prompt(env, 'one')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  t.is((await prompt(second, 'two')).code, 0);
  t.is((await turnEnded(second, 1, 120_000)).payload.reason, 'completed');
  const before = await pidsIn(pidFile);
  t.is(before.length, 2);
  t.is((await env.s.post('/api/v1/mcp/servers/fx:restart')).code, 0);
  await until(async () => (await pidsIn(pidFile)).length === 4, 120_000, 'both restarted');
  await until(() => before.every((p) => !alive(p)), 30_000, 'old children ended');
  const after = [...mcpOf(env).pids(env.sid), ...mcpOf(env).pids(second.sid)];
  t.is(after.length, 2);
  t.true(after.every((p) => !before.includes(p) && alive(p)));
});

test('a remote server that missed its reconnect comes back by itself: status error, then connected again with its tools, no :restart', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const remote = await startHttpMcp({ transport: 'http' });
  const port = Number(new URL(remote.url).port);
  let again: Awaited<ReturnType<typeof startHttpMcp>> | undefined;
  t.teardown(async () => {
    await again?.close();
  });
  const env = await startMcpEngine(t, { r: { transport: 'http', url: remote.url } }, YOLO);
  env.llm.setScript(call('c1', 'mcp__r__echo', { text: 'one' }), scripts.helloText, call('c2', 'mcp__r__echo', { text: 'two' }), scripts.helloText);
  t.is((await prompt(env, 'first')).code, 0);
  t.is((await turnEnded(env, 1, 120_000)).payload.reason, 'completed');
  await remote.close();
  t.is((await prompt(env, 'second')).code, 0);
  t.is((await turnEnded(env, 2, 120_000)).payload.reason, 'completed');
  t.true((await resultOf(env, 'c2')).is_error, 'the server is down: the call fails after its one reconnect');
  t.regex((await serverStatus(env.s, 'r', ['error'])).last_error, /reconnecting in \d+ ms \(attempt \d+ of 10\)/);
  again = await startHttpMcp({ transport: 'http', port });
  const back = await serverStatus(env.s, 'r', ['connected'], 120_000);
  t.true(back.tool_count > 0);
  t.deepEqual(again.calls, [], 'recovered without a call');
});

test(':restart right after a new session loads starts the server in that session (its layers may still be read)', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const env = await startMcpEngine(t, { fx: stdioServer() }, YOLO);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).code, 0);
  for (let i = 0; i < 3; i++) {
    const sid = await newSession(env.s);
    t.is((await env.s.get(`/api/v1/sessions/${sid}/status`)).code, 0);
    t.is((await env.s.post('/api/v1/mcp/servers/fx:restart')).code, 0);
    t.like(await serverStatus(env.s, 'fx', ['connected', 'error'], 120_000), { status: 'connected' }, `session ${i + 1}`);
    t.true(mcpOf(env).pids(sid).length === 1, 'the new session runs the child');
  }
});
