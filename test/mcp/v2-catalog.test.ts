import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { until } from '../helpers/wait.ts';
import { tempDir } from '../helpers/fs.ts';
import { STDIO_FIXTURE, alive, serverStatus, stdioServer, writeMcpFile, writePlugin } from '../helpers/mcp.ts';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';

const CANARY = 'canary-secret-7f3a9c';

/** Every answer of the test, to grep for the canary. */
function recording(s: TestServer) {
  const seen: string[] = [];
  const req = async (method: string, url: string, body?: unknown) => {
    const r = await s.req(method, url, body);
    seen.push(JSON.stringify(r.body));
    return r.body;
  };
  return { seen, get: (u: string) => req('GET', u), post: (u: string, b: unknown = {}) => req('POST', u, b), put: (u: string, b: unknown) => req('PUT', u, b), del: (u: string) => req('DELETE', u) };
}

test('CRUD on the user-level file: validated before writing, writes answer the refreshed list, file mode 0600, 40408 on unknown names', async (t) => {
  const home = await tempHome();
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const file = path.join(home, 'mcp.json');
  t.deepEqual((await s.get('/api/v2/mcp/servers')).data, []);
  const created = await s.post('/api/v2/mcp/servers', { name: 'fx', ...stdioServer({ TOKEN: 'abc' }) });
  t.is(created.code, 0, JSON.stringify(created));
  t.like(created.data[0], { name: 'fx', source: 'global', origin: file, mutable: true, config: { transport: 'stdio', env: { TOKEN: 'abc' } } });
  t.is((await stat(file)).mode & 0o777, 0o600);
  t.deepEqual(JSON.parse(await readFile(file, 'utf8')).mcpServers.fx.env, { TOKEN: 'abc' });
  t.like((await s.get('/api/v2/mcp/servers/fx')).data, { name: 'fx', mutable: true });
  t.is((await s.get('/api/v2/mcp/servers/nope')).code, 40408);

  const dup = await s.post('/api/v2/mcp/servers', { name: 'fx', ...stdioServer() });
  t.is(dup.code, 40001);
  t.is(dup.details[0].field, 'name');
  const before = await readFile(file, 'utf8');
  for (const bad of [
    { name: 'x', transport: 'ftp', url: 'ftp://x' },
    { name: 'x', transport: 'stdio' },
    { name: 'x', transport: 'http', url: 'file:///etc/passwd' },
    { name: 'a__b', transport: 'stdio', command: 'x' },
    { name: 'x', transport: 'stdio', command: 'x', typo: 1 },
    { name: 'x', transport: 'http', url: 'http://127.0.0.1:9/', headers: { 'bad header': 'v' } },
  ]) {
    const r = await s.post('/api/v2/mcp/servers', bad);
    t.is(r.code, 40001, JSON.stringify(bad));
    t.true(Array.isArray(r.details) && r.details.length > 0);
  }
  t.is(await readFile(file, 'utf8'), before, 'nothing written');

  const replaced = await s.req('PUT', '/api/v2/mcp/servers/fx', { transport: 'http', url: 'http://127.0.0.1:9/mcp' });
  t.is(replaced.body.code, 0);
  t.like(replaced.body.data[0], { name: 'fx', config: { transport: 'http', url: 'http://127.0.0.1:9/mcp' } });
  t.is((await s.req('PUT', '/api/v2/mcp/servers/ghost', { transport: 'stdio', command: 'x' })).body.code, 40408);
  t.is((await s.req('PUT', '/api/v2/mcp/servers/fx', { name: 'fx', transport: 'stdio', command: 'x' })).body.code, 40001, 'PUT takes no name');
  t.deepEqual((await s.req('DELETE', '/api/v2/mcp/servers/fx')).body.data, []);
  t.is((await s.req('DELETE', '/api/v2/mcp/servers/fx')).body.code, 40408);
  t.deepEqual(JSON.parse(await readFile(file, 'utf8')).mcpServers, {});
});

test('layers: plugins and (trusted) project layers are read-only and redacted, never disclosing a secret; a project name blocks a write, a plugin name is shadowed', async (t) => {
  const home = await tempHome();
  const root = await tempDir();
  const secretEntry = (extra: Record<string, unknown> = {}) => ({ transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Zeta': CANARY, Authorization: `Bearer ${CANARY}` }, ...extra });
  await writePlugin(home, 'tools-plugin', { docs: stdioServer({ ZED: CANARY, ALPHA: CANARY }), shared: secretEntry() });
  await writeMcpFile(path.join(root, '.mcp.json'), { proj: stdioServer({ API_KEY: CANARY }), bear: { transport: 'sse', url: 'http://127.0.0.1:9/sse', bearerToken: CANARY } });
  await writeMcpFile(path.join(root, '.svc-code', 'mcp.json'), { local: secretEntry({ oauth: { clientId: 'c1', clientSecret: CANARY } }) });
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const r = recording(s);
  const cwd = encodeURIComponent(root);

  const plain = (await r.get('/api/v2/mcp/servers')).data;
  t.deepEqual(plain.map((x: any) => x.name), ['docs', 'shared']);
  const docs = plain.find((x: any) => x.name === 'docs');
  t.like(docs, { source: 'plugin', origin: 'tools-plugin', mutable: false, plugin: { id: 'tools-plugin', name: 'tools-plugin' }, shadowed: false });
  t.deepEqual(docs.config.envKeys, ['ALPHA', 'ZED']);
  t.false('env' in docs.config);
  t.deepEqual(plain.find((x: any) => x.name === 'shared').config.headerKeys, ['Authorization', 'X-Zeta']);

  // A workspace registered but untrusted: the project layers stay out.
  t.is((await s.post('/api/v1/workspaces', { root })).code, 0);
  t.deepEqual((await r.get(`/api/v2/mcp/servers?cwd=${cwd}`)).data.map((x: any) => x.name), ['docs', 'shared']);
  const wid = (await s.get('/api/v1/workspaces')).data.items[0].id;
  t.is((await s.post(`/api/v1/workspaces/${wid}/trust`)).code, 0);
  const trusted = (await r.get(`/api/v2/mcp/servers?cwd=${cwd}`)).data;
  t.deepEqual(trusted.map((x: any) => x.name), ['bear', 'local', 'proj', 'docs', 'shared']);
  t.like(trusted.find((x: any) => x.name === 'proj'), { source: 'global', origin: path.join(root, '.mcp.json'), mutable: false, layer: 'project-root', config: { envKeys: ['API_KEY'] } });
  t.like(trusted.find((x: any) => x.name === 'bear'), { config: { hasBearerToken: true, headerKeys: [] } });
  t.like(trusted.find((x: any) => x.name === 'local'), { layer: 'project-local', config: { oauth: { clientId: 'c1', hasClientSecret: true } } });
  t.like((await r.get(`/api/v2/mcp/servers/proj?cwd=${cwd}`)).data, { name: 'proj', mutable: false });
  t.is((await r.get('/api/v2/mcp/servers/proj')).code, 40408, 'without cwd the project layer is not there');

  // A project-layer name is read-only there; the same name without cwd is a plain user write.
  const blocked = await r.post(`/api/v2/mcp/servers?cwd=${cwd}`, { name: 'proj', ...stdioServer() });
  t.is(blocked.code, 40001);
  t.regex(blocked.details[0].message, /read-only/);
  t.is((await r.put(`/api/v2/mcp/servers/proj?cwd=${cwd}`, stdioServer())).code, 40001);
  t.is((await r.del(`/api/v2/mcp/servers/local?cwd=${cwd}`)).code, 40001);
  t.is((await r.put('/api/v2/mcp/servers/docs', stdioServer())).code, 40001, 'a plugin entry is read-only');

  // A same-named plugin entry does not block the write; the file entry shadows it.
  const shadow = await r.post('/api/v2/mcp/servers', { name: 'docs', ...stdioServer() });
  t.is(shadow.code, 0);
  t.like(shadow.data.find((x: any) => x.name === 'docs' && x.source === 'global'), { mutable: true });
  t.like(shadow.data.find((x: any) => x.name === 'docs' && x.source === 'plugin'), { shadowed: true });

  const inspected = await r.post('/api/v2/mcp/servers:inspect', { cwd: root });
  t.is(inspected.code, 0, JSON.stringify(inspected));
  t.deepEqual(inspected.data.map((x: any) => x.serverId).sort(), ['global:bear', 'global:docs', 'global:local', 'global:proj', 'plugin:tools-plugin:docs', 'plugin:tools-plugin:shared'].sort());
  await r.get(`/api/v2/mcp/auth-statuses?cwd=${cwd}&verify=false`);
  await r.get(`/api/v2/mcp/auth-statuses?cwd=${cwd}`);
  for (const answer of r.seen) t.false(answer.includes(CANARY), `a secret leaked: ${answer.slice(0, 200)}`);
});

test('servers:inspect: locators, URL-encoded plugin ids, a shared runtime name is unavailable, an unknown locator is 40408', async (t) => {
  const home = await tempHome();
  await writePlugin(home, 'my plugin', { dup: stdioServer(), solo: { transport: 'http', url: 'http://127.0.0.1:9/mcp', bearerToken: 'x' } });
  await writePlugin(home, 'other', { dup: stdioServer() });
  await writeMcpFile(path.join(home, 'mcp.json'), { fx: stdioServer() });
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const all = (await s.post('/api/v2/mcp/servers:inspect', {})).data;
  const byId = Object.fromEntries(all.map((x: any) => [x.serverId, x]));
  t.deepEqual(Object.keys(byId).sort(), ['global:fx', 'plugin:my%20plugin:dup', 'plugin:my%20plugin:solo', 'plugin:other:dup']);
  t.like(byId['global:fx'], { locator: { source: 'global', name: 'fx' }, runtimeName: 'fx', editable: true, enabled: true, authStatus: 'not-applicable' });
  t.like(byId['plugin:my%20plugin:solo'], { locator: { source: 'plugin', pluginId: 'my plugin', serverName: 'solo' }, canonicalUrl: 'http://127.0.0.1:9/mcp', authStatus: 'bearer-token', editable: false });
  t.is(byId['plugin:my%20plugin:dup'].authStatus, 'unavailable');
  t.regex(byId['plugin:other:dup'].error, /shared by 2 enabled servers/);
  const one = await s.post('/api/v2/mcp/servers:inspect', { targets: [{ source: 'plugin', pluginId: 'my plugin', serverName: 'solo' }] });
  t.deepEqual(one.data.map((x: any) => x.serverId), ['plugin:my%20plugin:solo']);
  const missing = await s.post('/api/v2/mcp/servers:inspect', { targets: [{ source: 'global', name: 'ghost' }] });
  t.is(missing.code, 40408);
  t.is((await s.post('/api/v2/mcp/servers:inspect', { targets: [{ source: 'plugin', name: 'x' }] })).code, 40001);
  t.is((await s.post('/api/v2/mcp/servers:test', { name: 'dup' })).code, 40001, 'a shared runtime name cannot be tested by name');
});

test('servers:test: by name or inline, both-or-neither is 40001, unknown is 40408, a failure answers its text; cwd is a stdio child\'s working directory', async (t) => {
  const home = await tempHome();
  await writeMcpFile(path.join(home, 'mcp.json'), { fx: stdioServer() });
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const byName = await s.post('/api/v2/mcp/servers:test', { name: 'fx' });
  t.is(byName.code, 0);
  t.true(byName.data.success);
  t.regex(byName.data.output, /^echo: Echoes its text$/m);
  t.true(byName.data.tools.some((x: any) => x.name === 'hang'));
  const relative = { name: 'rel', transport: 'stdio', command: process.execPath, args: [path.basename(STDIO_FIXTURE), 'stdio'] };
  const inCwd = await s.post('/api/v2/mcp/servers:test', { server: relative, cwd: path.dirname(STDIO_FIXTURE) });
  t.true(inCwd.data.success, inCwd.data.output);
  const elsewhere = await s.post('/api/v2/mcp/servers:test', { server: relative, cwd: await tempDir() });
  t.false(elsewhere.data.success);
  t.regex(elsewhere.data.output, /Cannot find module/, 'the child\'s error message, whatever the length of the stack under it');
  const failing = await s.post('/api/v2/mcp/servers:test', { server: { name: 'x', transport: 'http', url: 'http://127.0.0.1:9/mcp' } });
  t.is(failing.code, 0);
  t.false(failing.data.success);
  t.regex(failing.data.output, /fetch failed|ECONNREFUSED/);
  t.is((await s.post('/api/v2/mcp/servers:test', {})).code, 40001);
  t.is((await s.post('/api/v2/mcp/servers:test', { name: 'fx', server: { name: 'fx', ...stdioServer() } })).code, 40001);
  t.is((await s.post('/api/v2/mcp/servers:test', { server: { name: 'x', transport: 'stdio' } })).code, 40001);
  t.is((await s.post('/api/v2/mcp/servers:test', { name: 'ghost' })).code, 40408);
  t.deepEqual(JSON.parse(await readFile(path.join(home, 'mcp.json'), 'utf8')).mcpServers, { fx: stdioServer() }, 'nothing persisted');
});

test('trust: trusting a workspace starts its project-layer servers in its live sessions, untrusting stops them', async (t) => {
  const home = await tempHome();
  const root = await tempDir();
  await writeMcpFile(path.join(root, '.svc-code', 'mcp.json'), { proj: stdioServer() });
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const sid = (await s.post('/api/v1/sessions', { metadata: { cwd: root } })).data.id;
  t.is((await s.get(`/api/v1/sessions/${sid}/status`)).code, 0);
  const wid = (await s.get(`/api/v1/sessions/${sid}`)).data.workspace_id;
  await s.mcp.ready(sid);
  t.deepEqual((await s.get('/api/v1/mcp/servers')).data.servers, []);
  await s.post(`/api/v1/workspaces/${wid}/trust`);
  await serverStatus(s, 'proj', ['connected']);
  const pids = s.mcp.pids(sid);
  t.is(pids.length, 1);
  await s.post(`/api/v1/workspaces/${wid}/untrust`);
  await until(async () => (await s.get('/api/v1/mcp/servers')).data.servers.length === 0, 30_000);
  await until(() => !alive(pids[0]!), 30_000);
  t.deepEqual(s.mcp.pids(sid), []);
});
