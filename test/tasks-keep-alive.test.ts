import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts, startFixtureLlm } from '../fixtures/llm/index.ts';
import { engineConfig, until } from './helpers/engine.ts';
import { tempDir } from './helpers/fs.ts';
import { api, killed, spawnDaemon } from './helpers/process.ts';
import { tempHome } from './helpers/server.ts';

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

test('a kept-alive task outlives a real daemon process and keeps writing its log (no SIGPIPE)', async (t) => {
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const home = await tempHome();
  const cwd = await tempDir();
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url, 'default_permission_mode = "yolo"\n[background]\nkeep_alive_on_exit = true'));
  const daemon = await spawnDaemon(home);
  t.teardown(() => killed(daemon.child, 'SIGKILL'));
  const sid = (await api(daemon.baseUrl, 'POST', '/api/v1/sessions', { metadata: { cwd } })).data.id;
  const command = 'echo $$ > k.pid; while true; do echo tick; sleep 0.05; done';
  llm.setScript({ events: [{ tool_call: { id: 'k1', name: 'Bash', args: { command, run_in_background: true } } }] }, scripts.helloText);
  t.is((await api(daemon.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'go' }] })).code, 0);
  const pid = await until(async () => Number(await readFile(path.join(cwd, 'k.pid'), 'utf8').catch(() => '0')), 10_000);
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  await killed(daemon.child, 'SIGTERM');
  const dir = path.join(home, 'tasks', sid);
  const log = path.join(dir, (await readdir(dir)).find((f) => f.endsWith('.log'))!);
  const size = (await stat(log)).size;
  await until(async () => (await stat(log)).size > size + 40, 5000);
  t.true(alive(pid));
});
