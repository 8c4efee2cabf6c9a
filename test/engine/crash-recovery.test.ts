import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { scripts, startFixtureLlm, type FixtureLlm, type StreamReply } from '../../fixtures/llm/index.ts';
import { journal, prompt, YOLO } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { api, killed, spawnDaemon } from '../helpers/process.ts';
import { pairingProblems, protocolConfig, PROTOCOLS, startOn } from '../helpers/protocols.ts';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// A daemon that dies (kill -9) or stops in the middle of a tool call: the calls left without a result get a
// journaled "interrupted" result before the turn is ended, so every later prompt runs on a history the providers
// accept. Issue 23 item 5.

/** A step of two calls: a command that holds until the test lets go (its pid written first), then a Write. */
const heldStep: StreamReply = {
  events: [
    { tool_call: { id: 'k1', name: 'Bash', args: { command: 'echo $$ > k.pid; while [ ! -f go ]; do sleep 0.05; done' } } },
    { tool_call: { id: 'k2', name: 'Write', args: { file_path: 'b.txt', content: 'b' } } },
  ],
};

const exists = (file: string) => access(file).then(() => true, () => false);

/** The held command's process group is ended when the test ends (a killed daemon leaves it behind). */
async function heldPid(t: ExecutionContext, cwd: string): Promise<number> {
  const pid = await until(async () => Number(await readFile(path.join(cwd, 'k.pid'), 'utf8').catch(() => '0')), 30_000, 'the command running');
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  return pid;
}

/** A prompt on the restarted server, answered with `reply`; returns the model request it made. */
async function promptAfter(t: ExecutionContext, s: TestServer, llm: FixtureLlm, sid: string, n: number) {
  const ws = await s.ws();
  t.teardown(() => ws.close());
  await ws.request('subscribe', { session_ids: [sid] });
  llm.setScript(scripts.helloText);
  const before = llm.requests.length;
  t.is((await prompt({ s, sid }, `after ${n}`)).code, 0);
  const ended = await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid, 30_000);
  t.is(ended.payload.reason, 'completed');
  t.is(llm.requests.length, before + 1);
  return llm.requests.at(-1)!;
}

for (const protocol of PROTOCOLS) {
  test(`${protocol}: kill -9 during a tool call, restart, new prompt: works (the open calls answered "interrupted")`, async (t) => {
    t.timeout(240_000, 'a daemon started from the sources, killed, and two restarts');
    const llm = await startFixtureLlm();
    t.teardown(() => llm.close());
    const home = await tempHome();
    const cwd = await tempDir();
    await writeFile(path.join(home, 'config.toml'), protocolConfig(llm.url, protocol, YOLO));
    const daemon = await spawnDaemon(home);
    t.teardown(() => killed(daemon.child, 'SIGKILL'));
    const sid = (await api(daemon.baseUrl, 'POST', '/api/v1/sessions', { metadata: { cwd } })).data.id;
    llm.setScript(heldStep);
    t.is((await api(daemon.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'go' }] })).code, 0);
    const pid = await heldPid(t, cwd);
    await killed(daemon.child, 'SIGKILL');
    try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }

    const s = await startTestServer({ home });
    t.teardown(() => s.stop());
    const events = await s.eventsOf(sid);
    const at = (pred: (e: any) => boolean) => events.findIndex(pred);
    const toolMsg = at((e) => e.type === 'message.created' && e.payload.message.role === 'tool');
    const ended = at((e) => e.type === 'turn.ended');
    t.true(toolMsg >= 0 && toolMsg < ended, 'the interrupted results are journaled before the turn is ended');
    t.like(events[ended]!.payload, { reason: 'failed', error: { kind: 'interrupted' } });
    const results = (events[toolMsg]!.payload as any).message.content;
    t.deepEqual(results.map((r: any) => [r.tool_use_id, r.is_error]), [['k1', true], ['k2', true]]);
    for (const r of results) t.regex(r.content, /^\[interrupted\]/);
    // Their transcript frames end as errors.
    t.deepEqual(events.filter((e) => e.type === 'tool.result').map((e) => (e.payload as any).tool_call_id), ['k1', 'k2']);
    t.false(await exists(path.join(cwd, 'b.txt')));
    // GET /messages (a projection of the journal) shows the same history the runtime rebuilt.
    const messages = (await s.get(`/api/v1/sessions/${sid}/messages?page_size=100`)).data.items;
    t.true(messages.some((m: any) => m.role === 'tool' && m.content.length === 2));

    const first = await promptAfter(t, s, llm, sid, 1);
    t.deepEqual(pairingProblems(first), []);
    t.true(JSON.stringify(first.body).includes('[interrupted]'));
    const second = await promptAfter(t, s, llm, sid, 2);
    t.deepEqual(pairingProblems(second), []);

    // A second restart finds nothing left to repair: the journal alone gives a valid history.
    const again = await s.restart();
    t.teardown(() => again.stop());
    const after = await again.eventsOf(sid);
    t.is(after.filter((e) => e.type === 'message.created' && (e.payload as any).message.role === 'tool').length, 1);
  });
}

test('a daemon stop during a tool call: the calls after it never run, every call has a result, the next prompt works', async (t) => {
  const env = await startOn(t, 'messages_api', YOLO);
  env.llm.setScript(heldStep);
  await prompt(env, 'go');
  const cwd = env.s.sessions.get(env.sid)!.cwd;
  await heldPid(t, cwd);
  t.teardown(() => writeFile(path.join(cwd, 'go'), ''));
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  t.false(await exists(path.join(cwd, 'b.txt')), 'the Write after the stopped command did not run');
  const events = await journal({ s: s2, sid: env.sid });
  const results = events.find((e) => e.type === 'message.created' && e.payload.message.role === 'tool')!.payload.message.content;
  t.deepEqual(results.map((r: any) => r.tool_use_id), ['k1', 'k2']);
  t.regex(results[1].content, /^\[interrupted\] The daemon stopped before this tool call ran/);
  t.like(events.filter((e) => e.type === 'turn.ended').at(-1)!.payload, { reason: 'failed', error: { kind: 'interrupted' } });
  const req = await promptAfter(t, s2, env.llm, env.sid, 1);
  t.deepEqual(pairingProblems(req), []);
});

test('a journal from before the fix (a call left without a result, nothing repaired): the next request is repaired before it goes out', async (t) => {
  // A journal from before the fix: a turn's calls with no tool message at all, ended as interrupted.
  const env = await startOn(t, 'chat_compat', YOLO);
  const { journal: j } = env.s;
  const now = new Date().toISOString();
  const base = { agent_id: 'main', turn_id: 'turn_old' };
  await j.append([
    { stream: env.sid, type: 'message.created', payload: { ...base, message: { id: 'msg_u', session_id: env.sid, role: 'user', content: [{ type: 'text', text: 'old' }], created_at: now, prompt_id: 'prompt_old' } } },
    {
      stream: env.sid, type: 'message.created',
      payload: { ...base, message: { id: 'msg_a', session_id: env.sid, role: 'assistant', content: [{ type: 'tool_use', id: 'old1', name: 'Bash', input: { command: 'true' } }], created_at: now } },
    },
  ]);
  const again = await env.s.restart();
  t.teardown(() => again.stop());
  const req = await promptAfter(t, again, env.llm, env.sid, 1);
  t.deepEqual(pairingProblems(req), []);
  t.true(JSON.stringify(req.body).includes('[interrupted]'));
});
