import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts, startFixtureLlm, type StreamReply } from '../../fixtures/llm/index.ts';
import { YOLO } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { freshDatabase } from '../helpers/pg.ts';
import { api, killed, spawnDaemon } from '../helpers/process.ts';
import { pairingProblems, protocolConfig } from '../helpers/protocols.ts';
import { tempHome } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { connectWs, TEST_TOKEN } from '../helpers/wire.ts';

// Issue 28 end to end: three daemons as child processes on one PostgreSQL journal (docs/scale-out.md "Three nodes").
// A session made on A is read on B and C; a prompt sent to B runs on A (the lease holder) and streams to a
// subscriber on C; A is killed with SIGKILL mid-tool; another node takes the session over; C's subscriber sees
// every committed event once, in seq order; the three nodes' journals agree; the next prompt, sent to C, runs.

const heldStep: StreamReply = { events: [{ tool_call: { id: 'k1', name: 'Bash', args: { command: 'echo $$ > k.pid; while [ ! -f go ]; do sleep 0.05; done' } } }] };

test('three nodes: reads, a forwarded command, a cross-node subscription, kill -9 of the owner, takeover, nothing lost or twice', async (t) => {
  t.timeout(300_000, 'three daemons started from the sources, one killed, a takeover');
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const url = await freshDatabase();
  const cwd = await tempDir();
  const start = async (id: string) => {
    const home = await tempHome();
    await writeFile(path.join(home, 'config.toml'), protocolConfig(llm.url, 'messages_api', YOLO));
    const d = await spawnDaemon(home, ['--port', '0'], { SVC_CODE_JOURNAL_URL: url, SVC_CODE_NODE_ID: id, SVC_CODE_LEASE_TTL_MS: '4000' });
    t.teardown(() => killed(d.child, 'SIGKILL'));
    return d;
  };
  const [a, b, c] = await Promise.all([start('node_a'), start('node_b'), start('node_c')]);
  const messages = async (base: string, sid: string) => (await api(base, 'GET', `/api/v1/sessions/${sid}/messages?page_size=100`)).data;

  // Made on A, read on B and C.
  const sid = (await api(a.baseUrl, 'POST', '/api/v1/sessions', { metadata: { cwd } })).data.id as string;
  for (const n of [b, c]) await until(async () => (await api(n.baseUrl, 'GET', `/api/v1/sessions/${sid}`)).code === 0, 30_000, 'the session followed');
  const ws = await connectWs(c.baseUrl, undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
  t.teardown(() => ws.close());
  t.is((await ws.request('subscribe', { session_ids: [sid] })).code, 0);

  // A first turn on A: A holds the lease while the runtime stays loaded.
  llm.setScript(scripts.helloText);
  t.is((await api(a.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'first' }] })).code, 0);
  await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid, 60_000);

  // Sent to B, run on A; streamed to C.
  llm.setScript(heldStep);
  t.is((await api(b.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'hold, via B' }] })).code, 0);
  const pid = await until(async () => Number(await readFile(path.join(cwd, 'k.pid'), 'utf8').catch(() => '0')), 60_000, 'the held command');
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  await ws.waitFor((f) => f.type === 'tool.call.started' && f.session_id === sid, 30_000);

  await killed(a.child, 'SIGKILL');
  try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  const ended = await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid && f.payload.reason === 'failed', 30_000);
  t.like(ended.payload, { error: { kind: 'interrupted' } });

  // The next prompt, sent to C, runs (on whichever node takes the lease) on a history the provider accepts.
  llm.setScript(scripts.helloText);
  const before = llm.requests.length;
  t.is((await api(c.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'after' }] })).code, 0);
  await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid && f.payload.prompt_id !== ended.payload.prompt_id && f.seq > ended.seq, 60_000);
  t.is(llm.requests.length, before + 1);
  t.deepEqual(pairingProblems(llm.requests.at(-1)!), []);

  // Nothing lost, nothing twice: B's and C's messages agree (every turn's, the interrupted one's included), and C's
  // subscriber got each committed event once, in seq order, with no gap.
  const onB = await until(async () => {
    const [mb, mc] = [await messages(b.baseUrl, sid), await messages(c.baseUrl, sid)];
    return JSON.stringify(mb) === JSON.stringify(mc) ? mb : undefined;
  }, 30_000, 'B and C agree');
  const texts = JSON.stringify(onB);
  for (const said of ['first', 'hold, via B', 'after']) t.true(texts.includes(said), said);
  const durable = ws.frames.filter((f) => f.session_id === sid && typeof f.seq === 'number' && !f.volatile).map((f) => f.seq as number);
  t.true(durable.length > 10);
  t.deepEqual(durable, durable.map((_, i) => durable[0] + i), 'contiguous, in order, none twice');
});
