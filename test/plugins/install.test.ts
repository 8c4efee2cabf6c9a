import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { zipSync, strToU8 } from 'fflate';
import { serverFor, newSession } from '../helpers/server.ts';
import { scratchDir, tempDir } from '../helpers/fs.ts';
import { serverStatus, startSessionServers, stdioServer } from '../helpers/mcp.ts';
import { until } from '../helpers/wait.ts';
import { gitHttpServer, gitRepo, loopbackServer, pluginFolder } from '../helpers/plugins.ts';

// Plain http is accepted for loopback hosts only under this test setting (docs/plugins.md).
process.env.SVC_CODE_PLUGINS_ALLOW_LOOPBACK_HTTP = '1';

const leftovers = async (home: string) => (await readdir(path.join(home, 'plugins')).catch(() => [] as string[])).filter((n) => n.startsWith('.staging') || n.startsWith('.trash'));

test('local folder: summary counts, skills join with source plugin, MCP servers read-only in /api/v2/mcp; disable removes both, enable brings them back, remove deletes', async (t) => {
  const s = await serverFor(t);
  const src = await pluginFolder({
    name: 'toolbox', version: '1.2.0', skill: 'plug-skill', commands: ['deploy', 'lint'],
    mcpServers: { docs: stdioServer({ SECRET_X: 'canary-plugin-secret' }), off: { ...stdioServer(), enabled: false }, bad: { transport: 'nope' } },
    hooks: [{ event: 'PreToolUse', matcher: 'Bash', command: 'true' }, { event: 'Nope', command: 'x' }],
  });
  const r = await s.post('/api/v1/plugins', { source: src });
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data, {
    id: 'toolbox', displayName: 'The toolbox', version: '1.2.0', enabled: true, state: 'ok', skillCount: 1, mcpServerCount: 2, enabledMcpServerCount: 1,
    hookCount: 1, commandCount: 2, hasErrors: true, source: 'local-path', originalSource: src,
  });
  t.deepEqual((await s.get('/api/v1/plugins')).data.plugins.map((p: any) => p.id), ['toolbox']);

  const sid = await newSession(s);
  const skill = async () => (await s.get(`/api/v1/sessions/${sid}/skills`)).data.skills.find((k: any) => k.name === 'plug-skill');
  t.like(await skill(), { source: 'plugin', description: 'from toolbox' });
  const mcp = async () => (await s.get('/api/v2/mcp/servers')).data.filter((x: any) => x.source === 'plugin');
  const docs = (await mcp()).find((x: any) => x.name === 'docs');
  t.like(docs, { source: 'plugin', mutable: false, origin: 'toolbox', plugin: { id: 'toolbox', name: 'toolbox' } });
  t.deepEqual(docs.config.envKeys, ['SECRET_X']);
  t.false(JSON.stringify(await s.get('/api/v2/mcp/servers')).includes('canary-plugin-secret'));

  t.deepEqual((await s.post('/api/v1/plugins/toolbox:disable')).data, { ok: true });
  t.false((await s.get('/api/v1/plugins')).data.plugins[0].enabled);
  t.is(await skill(), undefined, 'a disabled plugin contributes no skill');
  t.deepEqual(await mcp(), [], 'nor MCP servers');
  t.is((await s.post('/api/v1/plugins/toolbox:enable')).code, 0);
  t.like(await skill(), { source: 'plugin' });
  t.is((await mcp()).length, 2);

  t.is((await s.post('/api/v1/plugins/toolbox:remove')).code, 0);
  t.deepEqual((await s.get('/api/v1/plugins')).data.plugins, []);
  t.is(await skill(), undefined);
  for (const a of ['enable', 'disable', 'remove']) t.is((await s.post(`/api/v1/plugins/toolbox:${a}`)).code, 40419);
  t.deepEqual(await leftovers(s.home), []);
});

test('errors: 40001 for a relative path, a non-http URL or a folder that does not load (reason in details), 40409 for a missing path; nothing left behind', async (t) => {
  const s = await serverFor(t);
  for (const source of ['relative/dir', 'ftp://example.com/x.zip', 'http://example.com/a/b', '']) {
    t.is((await s.post('/api/v1/plugins', { source })).code, 40001, source);
  }
  const missing = await s.post('/api/v1/plugins', { source: path.join(await tempDir(), 'nope') });
  t.is(missing.code, 40409);
  const noManifest = await tempDir();
  const bad = await s.post('/api/v1/plugins', { source: noManifest });
  t.is(bad.code, 40001);
  t.regex(JSON.stringify(bad.details), /plugin\.json/);
  const badName = await pluginFolder({ name: '../evil' });
  t.is((await s.post('/api/v1/plugins', { source: badName })).code, 40001);
  t.deepEqual((await s.get('/api/v1/plugins')).data.plugins, []);
  t.deepEqual(await leftovers(s.home), []);
});

test('zip over loopback: a wrapped archive installs; a reinstall replaces it; a broken archive or an escaping entry fails and keeps the installed one', async (t) => {
  const s = await serverFor(t);
  let archive = zipSync({
    'toolbox-main/plugin.json': strToU8(JSON.stringify({ name: 'zipped', version: '1.0.0' })),
    'toolbox-main/skills/zs/SKILL.md': strToU8('---\nname: zs\ndescription: zipped skill\n---\nbody\n'),
  });
  const base = await loopbackServer(t, (req, res) => {
    const at = new URL(req.url ?? '/', 'http://x').pathname;
    if (at === '/p.zip') return void res.end(Buffer.from(archive));
    if (at === '/junk.zip') return void res.end('not a zip');
    res.statusCode = 404;
    res.end();
  });
  const r = await s.post('/api/v1/plugins', { source: `${base}/p.zip?token=abc` });
  t.is(r.code, 0, JSON.stringify(r));
  t.like(r.data, { id: 'zipped', version: '1.0.0', source: 'zip-url', skillCount: 1, originalSource: `${base}/p.zip`, hasErrors: false });

  archive = zipSync({ 'plugin.json': strToU8(JSON.stringify({ name: 'zipped', version: '2.0.0' })) });
  t.like((await s.post('/api/v1/plugins', { source: `${base}/p.zip` })).data, { version: '2.0.0', skillCount: 0 });

  t.is((await s.post('/api/v1/plugins', { source: `${base}/junk.zip` })).code, 40001);
  t.is((await s.post('/api/v1/plugins', { source: `${base}/missing.zip` })).code, 40001);
  archive = zipSync({ 'plugin.json': strToU8(JSON.stringify({ name: 'zipped', version: '3.0.0' })), '../escape.txt': strToU8('x') });
  const esc = await s.post('/api/v1/plugins', { source: `${base}/p.zip` });
  t.is(esc.code, 40001);
  t.regex(esc.msg, /escapes/);
  t.like((await s.get('/api/v1/plugins')).data.plugins[0], { id: 'zipped', version: '2.0.0' });
  await t.throwsAsync(stat(path.join(s.home, 'plugins', '..', 'escape.txt')));
  t.deepEqual(await leftovers(s.home), []);
});

test('git over loopback (git http-backend): default branch, /tree/<branch>, /releases/tag/<tag>, /commit/<sha>; repo info with installedSha; unknown ref fails cleanly', async (t) => {
  const s = await serverFor(t);
  const root = await scratchDir(t);
  const repo = await gitRepo(root, 'acme', 'tools');
  await pluginFolder({ name: 'gitplug', version: '1.0.0', dir: repo.work });
  const v1 = repo.commit('v1');
  repo.tag('v1.0.0');
  await pluginFolder({ name: 'gitplug', version: '2.0.0', dir: repo.work, skill: 'gs' });
  const v2 = repo.commit('v2');
  repo.branch('next');
  const base = await gitHttpServer(t, root);

  const head = await s.post('/api/v1/plugins', { source: `${base}/acme/tools` });
  t.is(head.code, 0, JSON.stringify(head));
  t.like(head.data, { id: 'gitplug', version: '2.0.0', source: 'repo', skillCount: 1, repo: { owner: 'acme', repo: 'tools', ref: { kind: 'branch', value: 'main' }, installedSha: v2 } });
  await t.throwsAsync(stat(path.join(s.home, 'plugins', 'gitplug', '.git')), undefined, 'no .git in the installed plugin');

  t.like((await s.post('/api/v1/plugins', { source: `${base}/acme/tools/releases/tag/v1.0.0` })).data, { version: '1.0.0', repo: { ref: { kind: 'tag', value: 'v1.0.0' }, installedSha: v1 } });
  t.like((await s.post('/api/v1/plugins', { source: `${base}/acme/tools/tree/next` })).data, { version: '2.0.0', repo: { ref: { kind: 'branch', value: 'next' }, installedSha: v2 } });
  t.like((await s.post('/api/v1/plugins', { source: `${base}/acme/tools/commit/${v1}` })).data, { version: '1.0.0', repo: { ref: { kind: 'sha', value: v1 }, installedSha: v1 } });
  t.like((await s.post('/api/v1/plugins', { source: `${base}/acme/tools/tree/${v2}` })).data, { version: '2.0.0', repo: { ref: { kind: 'sha', value: v2 }, installedSha: v2 } });

  const bad = await s.post('/api/v1/plugins', { source: `${base}/acme/tools/tree/no-such-branch` });
  t.is(bad.code, 40001);
  t.is((await s.post('/api/v1/plugins', { source: `${base}/acme/nothing` })).code, 40001);
  t.is((await s.post('/api/v1/plugins', { source: `${base}/acme/tools/pulls/3` })).code, 40001);
  t.like((await s.get('/api/v1/plugins')).data.plugins[0], { version: '2.0.0', repo: { installedSha: v2 } });
  t.deepEqual(await leftovers(s.home), []);
  await rm(root, { recursive: true, force: true });
});

test('a live session starts an enabled plugin\'s MCP server and stops it when the plugin is disabled', async (t) => {
  const s = await serverFor(t);
  const sid = await newSession(s);
  await startSessionServers(s, sid);
  const src = await pluginFolder({ name: 'mcp-plug', mcpServers: { plugdocs: stdioServer() } });
  t.is((await s.post('/api/v1/plugins', { source: src })).code, 0);
  t.like(await serverStatus(s, 'plugdocs', ['connected']), { status: 'connected' });
  await s.post('/api/v1/plugins/mcp-plug:disable');
  await until(async () => !(await s.get('/api/v1/mcp/servers')).data.servers.some((x: any) => x.name === 'plugdocs'), 30_000);
  t.pass();
});
