import type { ExecutionContext } from 'ava';
import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { buildScript, daemonEnv, ROOT } from './built.ts';
import { TEST_TOKEN } from './wire.ts';
import { until } from './wait.ts';
import type { Smoke } from './smoke.ts';

// One function per capability of the built daemon (test/smoke.test.ts lists them in order).

type T = ExecutionContext;
const WAIT_MS = 20_000;

/** Files the compiled folders hold besides TypeScript: each must reach dist/ (the daemon reads them beside their modules). */
export async function buildCurrentWithAssets(_d: Smoke, t: T) {
  const check = buildScript('--check');
  t.is(check.status, 0, check.stderr);
  const { include } = JSON.parse(await readFile(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  const assets: string[] = [];
  for (const folder of include) {
    for (const e of await readdir(path.join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (e.isFile() && !/\.(?:[cm]?ts|tsx)$/.test(e.name)) assets.push(path.relative(ROOT, path.join(e.parentPath, e.name)));
    }
  }
  t.true(assets.includes(path.join('src', 'providers', 'catalog', 'snapshot.json')));
  for (const f of assets) t.true(existsSync(path.join(ROOT, 'dist', f)), `dist/${f} is missing`);
}

export async function healthz(d: Smoke, t: T) {
  const r = await d.req('GET', '/api/v1/healthz', undefined, { auth: false });
  t.is(r.status, 200);
  t.deepEqual(r.body.data, { ok: true });
}

export async function meta(d: Smoke, t: T) {
  t.is((await d.req('GET', '/api/v1/meta', undefined, { auth: false })).status, 401);
  const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  const r = await d.req('GET', '/api/v1/meta');
  t.is(r.body.code, 0);
  t.like(r.body.data, { server_version: version, backend: 'v2', capabilities: { websocket: true, terminal: true } });
}

export async function openapi(d: Smoke, t: T) {
  const r = await d.req<any>('GET', '/openapi.json');
  t.is(r.status, 200);
  const doc = r.body as any;
  t.regex(doc.openapi, /^3\./);
  for (const p of ['/api/v1/healthz', '/api/v1/sessions', '/api/v1/catalog/providers/{catalog_id}']) t.truthy(doc.paths[p], p);
}

export async function asyncapi(d: Smoke, t: T) {
  const r = await d.req<any>('GET', '/asyncapi.json');
  t.is(r.status, 200);
  t.truthy((r.body as any).asyncapi);
}

export async function websocketHello(d: Smoke, t: T) {
  const ws = await d.ws();
  const hello = await ws.waitFor((f) => f.type === 'server_hello', WAIT_MS);
  t.is(hello.payload.protocol_version, 2);
}

/** Offline: the live directory fetch fails and the snapshot shipped in dist/ answers. */
export async function modelDirectoryOffline(d: Smoke, t: T) {
  const list = await d.req('GET', '/api/v1/catalog/providers');
  t.is(list.body.code, 0, JSON.stringify(list.body));
  t.true(list.body.data.items.some((e: any) => e.id === 'openrouter'));
  const one = await d.req('GET', '/api/v1/catalog/providers/openrouter');
  t.like(one.body, { code: 0, data: { id: 'openrouter', wire_type: 'chat_compat' } });
  t.is((await d.req('GET', '/api/v1/catalog/providers/no-such-entry')).body.code, 40417);
  const imported = await d.req('POST', '/api/v1/providers:import_catalog', { catalog_id: 'openrouter', api_key: 'sk-smoke' });
  t.is(imported.status, 201);
  t.is(imported.body.code, 0, JSON.stringify(imported.body));
}

export async function workspaceAndSession(d: Smoke, t: T) {
  const wid = await d.workspace();
  t.regex(wid, /^wd_/);
  const sid = await d.session();
  t.regex(sid, /^session_/);
  const s = await d.req('GET', `/api/v1/sessions/${sid}`);
  t.like(s.body.data, { id: sid, workspace_id: wid, metadata: { cwd: d.root } });
}

/** A turn streamed from the fixture LLM whose Write call waits for an approval given over REST. */
export async function promptWithApprovedToolCall(d: Smoke, t: T) {
  const sid = await d.session();
  const ws = await d.ws();
  t.is((await ws.request('subscribe', { session_ids: [sid] })).code, 0);
  d.llm.setScript({ events: [{ tool_call: { id: 'smoke-w1', name: 'Write', args: { file_path: 'smoke.txt', content: 'smoke\n' } } }] }, scripts.helloText);
  const accepted = await d.req('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'write smoke.txt' }] });
  t.is(accepted.body.code, 0, JSON.stringify(accepted.body));
  const requested = await ws.waitFor((f) => f.type === 'event.approval.requested' && f.session_id === sid, WAIT_MS);
  t.is(requested.payload.tool_name, 'Write');
  const resolved = await d.req('POST', `/api/v1/sessions/${sid}/approvals/${requested.payload.approval_id}`, { decision: 'approved' });
  t.true(resolved.body.data.resolved);
  const ended = await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid, WAIT_MS);
  t.is(ended.payload.reason, 'completed');
  const result = ws.frames.find((f) => f.type === 'tool.result' && f.session_id === sid);
  t.false(result.payload.is_error);
  const streamed = ws.frames.filter((f) => f.type === 'assistant.delta' && f.session_id === sid).map((f) => f.payload.text).join('');
  t.is(streamed, 'Hello, world');
  t.is(await readFile(path.join(d.root, 'smoke.txt'), 'utf8'), 'smoke\n');
}

/**
 * The shared session exported as a zip, imported back with `svc-code import` (dist's CLI, through the running
 * daemon: the id is taken, so a new one), its messages equal; the search index (dist's worker thread) finds both.
 */
export async function exportImportSearch(d: Smoke, t: T) {
  const sid = await d.session();
  const res = await fetch(`${d.baseUrl}/api/v1/sessions/${sid}/export`, {
    method: 'POST', headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ web_log: 'smoke' }),
  });
  t.is(res.headers.get('content-type'), 'application/zip');
  const zipFile = path.join(d.home, 'smoke-export.zip');
  await writeFile(zipFile, Buffer.from(await res.arrayBuffer()));
  const cli = await runCli(['import', zipFile], daemonEnv(d.home));
  t.is(cli.status, 0, cli.stderr);
  const imported = JSON.parse(cli.stdout);
  t.like(imported, { original_id: sid, id_changed: true });
  const copy = imported.session.id;
  const a = await d.req('GET', `/api/v1/sessions/${sid}/messages?page_size=100`);
  const b = await d.req('GET', `/api/v1/sessions/${copy}/messages?page_size=100`);
  t.deepEqual(JSON.parse(JSON.stringify(b.body.data).split(copy).join(sid)), a.body.data);
  const found = await until(async () => {
    const r = await d.req('POST', '/api/v1/search', { query: 'smoke.txt', mode: 'literal', role: 'user' });
    return r.body.data.items.length === 2 ? r.body.data : undefined;
  }, WAIT_MS, 'both sessions found by search');
  t.deepEqual(found.items.map((i: { session_id: string }) => i.session_id).sort(), [sid, copy].sort());
  t.is(found.index_state.state, 'ready');
}

export async function terminalEcho(d: Smoke, t: T) {
  const sid = await d.session();
  const ws = await d.ws();
  const term = await d.req('POST', `/api/v1/sessions/${sid}/terminals`, { shell: '/bin/sh' });
  t.is(term.body.code, 0, JSON.stringify(term.body));
  const id = term.body.data.id;
  t.is((await ws.request('terminal_attach', { terminal_id: id })).code, 0);
  t.is((await ws.request('terminal_input', { terminal_id: id, data: 'echo smoke-$((6*7))\r' })).code, 0);
  const output = () => ws.frames.filter((f) => f.type === 'terminal_output' && f.payload.terminal_id === id).map((f) => f.payload.data).join('');
  await ws.waitFor((f) => f.type === 'terminal_output' && output().includes('smoke-42'), WAIT_MS);
  t.true((await d.req('POST', `/api/v1/sessions/${sid}/terminals/${id}:close`)).body.data.closed);
}

export async function builtinSkills(d: Smoke, t: T) {
  const sid = await d.session();
  const r = await d.req('GET', `/api/v1/sessions/${sid}/skills`);
  t.is(r.body.code, 0);
  t.true(r.body.data.skills.some((s: any) => s.name === 'svc-code-api' && s.source === 'builtin'), JSON.stringify(r.body.data));
  const w = await d.req('GET', `/api/v1/workspaces/${await d.workspace()}/skills`);
  t.true(w.body.data.skills.some((s: any) => s.name === 'svc-code-api' && s.source === 'builtin'));
}

/** Pid file of the MCP check's stdio server: its child must be gone after the daemon stops. */
let mcpPidFile: string | undefined;

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A plugin folder installed over REST: its skill joins the session's skills (source plugin), leaves when disabled, and the plugin is removed. */
export async function pluginInstall(d: Smoke, t: T) {
  const dir = path.join(d.root, 'smoke-plugin');
  await mkdir(path.join(dir, 'skills', 'smoke-skill'), { recursive: true });
  await writeFile(path.join(dir, 'plugin.json'), JSON.stringify({ name: 'smoke-plugin', version: '1.0.0' }));
  await writeFile(path.join(dir, 'skills', 'smoke-skill', 'SKILL.md'), '---\nname: smoke-skill\ndescription: from a plugin\n---\nbody\n');
  await writeFile(path.join(dir, 'hooks.json'), JSON.stringify({ hooks: [{ event: 'Stop', command: 'true' }] }));
  const installed = await d.req<any>('POST', '/api/v1/plugins', { source: dir });
  t.is(installed.body.code, 0, JSON.stringify(installed.body));
  t.like(installed.body.data, { id: 'smoke-plugin', version: '1.0.0', enabled: true, state: 'ok', skillCount: 1, hookCount: 1, source: 'local-path' });
  const sid = await d.session();
  const skill = async () => (await d.req<any>('GET', `/api/v1/sessions/${sid}/skills`)).body.data.skills.find((k: any) => k.name === 'smoke-skill');
  t.like(await skill(), { source: 'plugin' });
  t.is((await d.req('POST', '/api/v1/plugins/smoke-plugin:disable')).body.code, 0);
  t.is(await skill(), undefined);
  t.is((await d.req('POST', '/api/v1/plugins/smoke-plugin:remove')).body.code, 0);
  t.deepEqual((await d.req<any>('GET', '/api/v1/plugins')).body.data.plugins, []);
}

/** An MCP stdio server (the SDK fixture) added over /api/v2/mcp, probed, then started by a session's runtime. */
export async function mcpStdioServer(d: Smoke, t: T) {
  mcpPidFile = path.join(d.root, 'mcp-smoke.pids');
  const config = { transport: 'stdio', command: process.execPath, args: [path.join(ROOT, 'fixtures/mcp/servers.mjs'), 'stdio'], env: { MCP_FIXTURE_PID_FILE: mcpPidFile } };
  const added = await d.req('POST', '/api/v2/mcp/servers', { name: 'smoke', ...config });
  t.is(added.body.code, 0, JSON.stringify(added.body));
  const probed = await d.req<any>('POST', '/api/v2/mcp/servers:test', { name: 'smoke' });
  t.true(probed.body.data.success, probed.body.data.output);
  t.regex(probed.body.data.output, /^echo: /m);
  const sid = (await d.req<any>('POST', '/api/v1/sessions', { workspace_id: await d.workspace() })).body.data.id;
  t.is((await d.req('GET', `/api/v1/sessions/${sid}/status`)).body.code, 0);
  // A read starts no server (its first turn would): :restart starts it in the effective session.
  t.is((await d.req('POST', '/api/v1/mcp/servers/smoke:restart')).body.code, 0);
  const end = Date.now() + WAIT_MS;
  let server: any;
  while (Date.now() < end) {
    server = (await d.req<any>('GET', '/api/v1/mcp/servers')).body.data.servers.find((x: any) => x.name === 'smoke');
    if (server?.status === 'connected' || server?.status === 'error') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.like(server, { id: 'smoke', transport: 'stdio', status: 'connected' });
  const tools = (await d.req<any>('GET', `/api/v1/tools?session_id=${sid}`)).body.data.tools;
  t.true(tools.some((x: any) => x.name === 'mcp__smoke__echo' && x.source === 'mcp'));
}

/** Last: SIGTERM, a clean exit, the instance file gone, and no MCP child left behind. */
export async function sigtermShutdown(d: Smoke, t: T) {
  const serverId = (await d.req('GET', '/api/v1/meta')).body.data.server_id;
  const file = path.join(d.home, 'server', 'instances', `${serverId}.json`);
  t.is(JSON.parse(await readFile(file, 'utf8')).pid, d.daemon.child.pid);
  const mcpPids = mcpPidFile ? (await readFile(mcpPidFile, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number) : [];
  t.is(await d.daemon.stop('SIGTERM'), 0, d.daemon.stderr());
  t.false(existsSync(file));
  for (const pid of mcpPids) t.false(isAlive(pid), `MCP child ${pid} outlived the daemon`);
}

/** The export of the shared session (its approved Write turn) replayed by dist's CLI in a temp home: no divergence. */
export async function replayExport(d: Smoke, t: T) {
  const zipFile = path.join(d.home, 'smoke-export.zip');
  const cli = await runCli(['replay', zipFile, '--json'], daemonEnv(d.home));
  t.is(cli.status, 0, cli.stdout + cli.stderr);
  const report = JSON.parse(cli.stdout);
  t.like(report, { session_id: await d.session(), divergence: null, stopped: null, tool_answers_from_record: 1 });
  t.true(report.turns.replayed >= 1);
}

/**
 * dist's CLI as a child process, awaited without blocking this process: a spawnSync here froze the test's
 * event loop while the daemon closed its idle keep-alive sockets, and the next request reused a closed one.
 */
function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'dist/src/cli/main.js'), ...args], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}
