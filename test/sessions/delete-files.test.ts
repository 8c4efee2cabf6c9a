import test from 'ava';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { makePng } from '../helpers/images.ts';

const PNG = (await makePng(16, 16, { noise: true })).toString('base64');

/** The session's folders under the home that hold its files. */
const dirsOf = (env: EngineEnv, sid: string) => ['sessions-media', 'tasks', 'tool-results'].map((d) => path.join(env.s.home, d, sid));
const entries = (dir: string) => readdir(dir).catch(() => null);

test(':delete removes the session\'s media, task logs and saved tool outputs, and leaves another session\'s', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  // A turn that stores an image (session media) and runs a Bash command (a task log).
  env.llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'echo logged' } } }] }, scripts.helloText);
  const r = await prompt(env, { content: [{ type: 'text', text: 'look' }, { type: 'image', source: { kind: 'base64', media_type: 'image/png', data: PNG } }] });
  t.is(r.code, 0);
  await turnEnded(env);
  // A saved MCP tool output (docs/mcp.md "Size") where the daemon keeps them.
  const [, , results] = dirsOf(env, env.sid);
  await mkdir(results!, { recursive: true });
  await writeFile(path.join(results!, 'call_1.txt'), 'a large output');
  for (const dir of dirsOf(env, env.sid)) t.true(((await entries(dir)) ?? []).length > 0, `${dir} holds files before the delete`);

  // Another session with media of its own.
  const other = (await env.s.post('/api/v1/sessions', { metadata: { cwd: env.s.sessions.get(env.sid)!.cwd } })).data.id;
  env.llm.setScript(scripts.helloText);
  t.is((await prompt({ s: env.s, sid: other }, { content: [{ type: 'text', text: 'look' }, { type: 'image', source: { kind: 'base64', media_type: 'image/png', data: PNG } }] })).code, 0);
  await env.ws.waitFor((f) => f.type === 'event.session.work_changed' && f.session_id === other && f.payload.busy === false, 30_000);

  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:delete`)).code, 0);
  for (const dir of dirsOf(env, env.sid)) t.is(await entries(dir), null, `${dir} is gone`);
  t.true(((await entries(dirsOf(env, other)[0]!)) ?? []).length > 0, 'the other session keeps its media');
});
