import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { pidsIn, serverStatus, startMcpEngine, startSessionServers, stdioServer, writeMcpFile } from '../helpers/mcp.ts';
import { newSession, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// `[watch] enabled` (Part B "watch"): local config, AGENTS.md, skills, MCP config and config.toml, each edited by hand
// while the daemon runs, and the change seen. config.toml's own watcher test is in config.test.ts.

const WATCH = '[watch]\nenabled = true\n';

/** Waits until the config watchers follow `file` (they follow workspace events, applied after the commit). */
const watching = (s: TestServer, file: string) =>
  until(() => s.configWatchers.watched.includes(file), 30_000, `watching ${file}`);

const started = (pidFile: string, what: string) => until(async () => (await pidsIn(pidFile)).length > 0, 120_000, what);

test('MCP config (user mcp.json, a trusted project\'s .mcp.json) and local.toml edited by hand reach a live session', async (t) => {
  t.timeout(400_000, 'MCP children start slowly on a loaded machine');
  const dir = await tempDir();
  const [fxPids, gxPids, pxPids, rootsFile] = ['fx', 'gx', 'px', 'roots'].map((f) => path.join(dir, f));
  const fx = stdioServer({ MCP_FIXTURE_PID_FILE: fxPids, MCP_FIXTURE_ROOTS_FILE: rootsFile });
  const env = await startMcpEngine(t, { fx }, WATCH);
  const ws = env.s.workspaceOf(env.sid);
  t.is((await env.s.post(`/api/v1/workspaces/${ws.id}/trust`)).code, 0);
  const local = path.join(ws.root, '.svc-code', 'local.toml');
  await watching(env.s, local);
  await startSessionServers(env.s, env.sid);
  await serverStatus(env.s, 'fx', ['connected'], 120_000);

  // The user-level mcp.json: a server added by hand starts in the live session.
  await writeMcpFile(path.join(env.home, 'mcp.json'), { fx, gx: stdioServer({ MCP_FIXTURE_PID_FILE: gxPids }) });
  await started(gxPids, 'gx started by the edit of mcp.json');
  t.deepEqual(env.s.mcp.pids(env.sid).length, 2);

  // The project's .mcp.json (the workspace is trusted): its server joins the session too.
  await writeMcpFile(path.join(ws.root, '.mcp.json'), { px: stdioServer({ MCP_FIXTURE_PID_FILE: pxPids }) });
  await started(pxPids, 'px started by the edit of .mcp.json');

  // local.toml: a directory added by hand is offered to the session's servers, which hear roots/list_changed.
  const extra = await tempDir('svc-code-extra-');
  await mkdir(path.dirname(local), { recursive: true });
  await writeFile(local, `# added by hand\n[workspace]\nadditional_dir = [${JSON.stringify(extra)}]\n`);
  const lines = await until(async () => {
    const text = await readFile(rootsFile, 'utf8').catch(() => '');
    const listed = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]);
    return listed.some((uris) => uris.includes(pathToFileURL(extra).href)) ? listed : undefined;
  }, 60_000, 'fx told of the new root');
  t.true(lines!.at(-1)!.includes(pathToFileURL(ws.root).href));
});

test('AGENTS.md and skills edited by hand: the next session and the next listing see the edit', async (t) => {
  t.timeout(120_000);
  const env = await startEngine(t, { extraToml: WATCH });
  const cwd = env.s.sessions.get(env.sid)!.cwd;
  // AGENTS.md goes into a session's system prompt, recorded once when the session is first loaded: a new session reads the edit.
  const systemOf = (i: number): string => env.llm.requests[i]!.body.messages.find((m: any) => m.role === 'system')?.content ?? '';
  await writeFile(path.join(cwd, 'AGENTS.md'), 'Rule one.\n');
  env.llm.setScript(scripts.helloText, scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  t.true(systemOf(0).includes('Rule one.'));
  await writeFile(path.join(cwd, 'AGENTS.md'), 'Rule two, edited by hand.\n');
  const env2: EngineEnv = { ...env, sid: await newSession(env.s, { metadata: { cwd } }) };
  await env.ws.request('subscribe', { session_ids: [env2.sid] });
  await prompt(env2, 'hi');
  await turnEnded(env2);
  t.true(systemOf(1).includes('Rule two, edited by hand.'));
  t.false(systemOf(1).includes('Rule one.'));

  // A user skill: its listing follows the file.
  const skillDir = path.join(env.s.home, 'skills', 'tidy');
  await mkdir(skillDir, { recursive: true });
  const skillFile = (description: string) => writeFile(path.join(skillDir, 'SKILL.md'), `---\nname: tidy\ndescription: ${description}\n---\nTidy up.\n`);
  const listed = async () => (await env.s.get(`/api/v1/sessions/${env.sid}/skills`)).data.skills.find((x: any) => x.name === 'tidy')?.description;
  await skillFile('first version');
  t.is(await listed(), 'first version');
  await skillFile('edited by hand, longer');
  t.is(await listed(), 'edited by hand, longer');
});
