import path from 'node:path';
import test from 'ava';
import { until } from '../helpers/wait.ts';
import { tempDir } from '../helpers/fs.ts';
import { alive, pidsIn, serverStatus, startSessionServers, stdioServer, writeMcpFile } from '../helpers/mcp.ts';
import { startTestServer, tempHome, type TestServer, newSession } from '../helpers/server.ts';

async function serverWith(servers: Record<string, unknown>): Promise<{ s: TestServer; home: string }> {
  const home = await tempHome();
  await writeMcpFile(path.join(home, 'mcp.json'), servers);
  return { s: await startTestServer({ home }), home };
}

/** A session whose runtime is loaded (GET status resumes a cold session) and whose servers start, as on its first turn. */
async function liveSession(s: TestServer): Promise<string> {
  const sid = await newSession(s);
  await startSessionServers(s, sid);
  return sid;
}

test('no live session: the v1 list is empty and :restart is 40408', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const { s } = await serverWith({ fx: stdioServer() });
  t.teardown(() => s.stop());
  t.deepEqual((await s.get('/api/v1/mcp/servers')).data, { servers: [] });
  const r = await s.post('/api/v1/mcp/servers/fx:restart');
  t.is(r.code, 40408);
  t.deepEqual(r.details, { id: 'fx' });
  t.is((await s.post('/api/v1/mcp/servers/fx:stop')).code, 40001);
  t.is((await s.post('/api/v1/mcp/servers/fx')).code, 40001);
});

test('stdio servers start with the session runtime: v1 list, tools as mcp__<server>__<tool> in GET /tools, :restart replaces the child', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const pidFile = path.join(await tempDir(), 'pids');
  const { s } = await serverWith({ fx: stdioServer({ MCP_FIXTURE_PID_FILE: pidFile }) });
  t.teardown(() => s.stop());
  const sid = await liveSession(s);
  const fx = await serverStatus(s, 'fx');
  t.like(fx, { id: 'fx', name: 'fx', transport: 'stdio', status: 'connected' });
  t.true(fx.tool_count >= 10);
  t.false('last_error' in fx);
  const tools = (await s.get(`/api/v1/tools?session_id=${sid}`)).data.tools;
  const echo = tools.find((x: any) => x.name === 'mcp__fx__echo');
  t.like(echo, { source: 'mcp', mcp_server_id: 'fx', input_schema: null, active: true });
  t.true(tools.some((x: any) => x.name === 'Read' && x.source === 'builtin'));
  const [first] = await pidsIn(pidFile);
  t.true(alive(first!));
  t.deepEqual((await s.post('/api/v1/mcp/servers/fx:restart')).data, { restarting: true });
  await until(async () => (await pidsIn(pidFile)).length === 2, 60_000);
  await serverStatus(s, 'fx', ['connected']);
  await until(() => !alive(first!), 60_000);
  const [, second] = await pidsIn(pidFile);
  t.true(alive(second!));
  t.is((await s.post('/api/v1/mcp/servers/nope:restart')).code, 40408);
});

test('[tools] globs mark MCP tools inactive in GET /tools', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const home = await tempHome();
  await writeMcpFile(path.join(home, 'mcp.json'), { fx: stdioServer() });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(path.join(home, 'config.toml'), '[tools]\ndisabled = ["mcp__fx__e*"]\n');
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const sid = await liveSession(s);
  await serverStatus(s, 'fx', ['connected']);
  const tools = (await s.get(`/api/v1/tools?session_id=${sid}`)).data.tools;
  t.false(tools.find((x: any) => x.name === 'mcp__fx__echo').active);
  t.false(tools.find((x: any) => x.name === 'mcp__fx__env').active);
  t.true(tools.find((x: any) => x.name === 'mcp__fx__fail').active);
});

test('a server that fails to start shows status error with last_error and leaves the session usable', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const { s } = await serverWith({
    broken: stdioServer({ MCP_FIXTURE_EXIT: '1' }),
    missing: { transport: 'stdio', command: '/nonexistent/svc-mcp-server' },
    slow: stdioServer({ MCP_FIXTURE_SILENT: '1' }, { startupTimeoutMs: 300 }),
    ok: stdioServer(),
  });
  t.teardown(() => s.stop());
  const sid = await liveSession(s);
  const broken = await serverStatus(s, 'broken', ['error']);
  t.regex(broken.last_error, /exiting on purpose|closed/);
  t.is(broken.tool_count, 0);
  t.regex((await serverStatus(s, 'missing', ['error'])).last_error, /ENOENT|nonexistent/);
  t.regex((await serverStatus(s, 'slow', ['error'])).last_error, /did not start within 300 ms/);
  await serverStatus(s, 'ok', ['connected']);
  t.is((await s.get(`/api/v1/sessions/${sid}/status`)).code, 0);
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { title: 'still usable' })).code, 0);
});

test('lifecycle: children stop when the runtime unloads and when the daemon stops; a WebSocket reconnect restarts nothing', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const pidFile = path.join(await tempDir(), 'pids');
  const { s } = await serverWith({ a: stdioServer({ MCP_FIXTURE_PID_FILE: pidFile }), b: stdioServer({ MCP_FIXTURE_PID_FILE: pidFile }) });
  let stopped = false;
  t.teardown(() => (stopped ? undefined : s.stop()));
  const sid = await liveSession(s);
  await serverStatus(s, 'a', ['connected']);
  await serverStatus(s, 'b', ['connected']);
  const pids = await pidsIn(pidFile);
  t.is(pids.length, 2);
  t.true(pids.every(alive));

  const ws = await s.ws();
  t.is((await ws.request('subscribe', { session_ids: [sid] })).code, 0);
  await ws.close();
  const again = await s.ws();
  t.is((await again.request('subscribe', { session_ids: [sid] })).code, 0);
  await again.close();
  t.deepEqual(await pidsIn(pidFile), pids, 'no child was started again');
  t.true(pids.every(alive));

  t.deepEqual(await s.engine.unloadIdle(Date.now() + 24 * 3600_000), [sid]);
  await until(() => pids.every((p) => !alive(p)), 60_000);
  t.deepEqual((await s.get('/api/v1/mcp/servers')).data.servers, []);

  await liveSession(s);
  await serverStatus(s, 'a', ['connected']);
  await serverStatus(s, 'b', ['connected']);
  const next = (await pidsIn(pidFile)).slice(2);
  t.is(next.length, 2);
  t.true(next.every(alive));
  stopped = true;
  await s.stop();
  await until(() => next.every((p) => !alive(p)), 60_000);
  t.pass();
});

test('a server still starting is killed, not waited for, when its runtime unloads; [mcp] startup_timeout_ms applies to servers without their own', async (t) => {
  t.timeout(300_000, 'MCP children start slowly on a loaded machine');
  const pidFile = path.join(await tempDir(), 'pids');
  const home = await tempHome();
  await writeMcpFile(path.join(home, 'mcp.json'), {
    starting: stdioServer({ MCP_FIXTURE_SILENT: '1', MCP_FIXTURE_PID_FILE: pidFile }, { startupTimeoutMs: 3_600_000 }),
    global: stdioServer({ MCP_FIXTURE_SILENT: '1' }),
  });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(path.join(home, 'config.toml'), '[mcp]\nstartup_timeout_ms = 400\n');
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const sid = await liveSession(s);
  t.regex((await serverStatus(s, 'global', ['error'])).last_error, /did not start within 400 ms/);
  t.is((await serverStatus(s, 'starting', ['connecting'])).status, 'connecting');
  const [pid] = (await until(async () => { const p = await pidsIn(pidFile); return p.length ? p : undefined; }, 60_000))!;
  t.true(alive(pid!));
  t.deepEqual(await s.engine.unloadIdle(Date.now() + 24 * 3600_000), [sid]);
  await until(() => !alive(pid!), 60_000);
});
