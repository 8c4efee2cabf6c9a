import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { scripts, startFixtureLlm, type FixtureLlm, type StreamReply } from '../../fixtures/llm/index.ts';
import { YOLO } from '../helpers/engine.ts';
import { tempDir } from '../helpers/fs.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';
import { api, killed, spawnDaemon } from '../helpers/process.ts';
import { pairingProblems, protocolConfig } from '../helpers/protocols.ts';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// Issue 28, leases and takeover (docs/scale-out.md "Leases"): the node that runs a session holds its lease in
// PostgreSQL; when it dies (kill -9) mid-tool, another node takes the session over once the lease expires, journals
// the turn as interrupted (the open calls answered first), and runs the next prompt. A node that starts while
// another runs a turn leaves that turn alone.

/** A step whose command holds until the test lets go (its pid written first), then a Write. */
const heldStep: StreamReply = {
  events: [
    { tool_call: { id: 'k1', name: 'Bash', args: { command: 'echo $$ > k.pid; while [ ! -f go ]; do sleep 0.05; done' } } },
    { tool_call: { id: 'k2', name: 'Write', args: { file_path: 'b.txt', content: 'b' } } },
  ],
};

interface Cluster { url: string; llm: FixtureLlm; cwd: string; homeOf(node: string): Promise<string> }

async function cluster(t: ExecutionContext): Promise<Cluster> {
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const url = await freshDatabase();
  const cwd = await tempDir();
  const homeOf = async () => {
    const home = await tempHome();
    await writeFile(path.join(home, 'config.toml'), protocolConfig(llm.url, 'messages_api', YOLO));
    return home;
  };
  return { url, llm, cwd, homeOf };
}

/** An in-process node on the cluster's database. */
async function node(t: ExecutionContext, c: Cluster, id: string, env: NodeJS.ProcessEnv = {}): Promise<TestServer> {
  const s = await startTestServer({ home: await c.homeOf(id), options: { journalUrl: c.url }, env: { SVC_CODE_NODE_ID: id, ...env } });
  t.teardown(() => s.stop());
  return s;
}

/** The held command's pid, once it runs; its process group is ended when the test ends. */
async function heldPid(t: ExecutionContext, cwd: string): Promise<number> {
  const pid = await until(async () => Number(await readFile(path.join(cwd, 'k.pid'), 'utf8').catch(() => '0')), 60_000, 'the command running');
  t.teardown(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });
  return pid;
}

/**
 * Nodes A and B (6 s leases), a session on A whose turn `start` begins and holds in its command; then A stops
 * gracefully (`beforeStop` runs just before) and the held command is ended.
 */
async function stoppedMidTurn(t: ExecutionContext, c: Cluster, start: (a: TestServer, sid: string) => Promise<void>, beforeStop = () => {}) {
  const env = { SVC_CODE_LEASE_TTL_MS: '6000' };
  const a = await node(t, c, 'node_a', env);
  const b = await node(t, c, 'node_b', env);
  const sid = (await a.post('/api/v1/sessions', { metadata: { cwd: c.cwd } })).data.id as string;
  await start(a, sid);
  const pid = await heldPid(t, c.cwd);
  beforeStop();
  await a.stop();
  try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  return { b, sid };
}

const leaseOf = async (url: string, sid: string) => (await sql(url, 'SELECT node_id FROM session_leases WHERE session_id = $1', [sid])).rows[0]?.node_id as string | undefined;

test('kill -9 of the owner mid-tool: another node takes the session over within 15 s, ends the turn interrupted, and runs the next prompt', async (t) => {
  t.timeout(240_000, 'a daemon started from the sources, killed, and a takeover after the default lease time');
  const c = await cluster(t);
  const a = await spawnDaemon(await c.homeOf('node_a'), ['--port', '0'], { SVC_CODE_JOURNAL_URL: c.url, SVC_CODE_NODE_ID: 'node_a' });
  t.teardown(() => killed(a.child, 'SIGKILL'));
  const b = await node(t, c, 'node_b');
  const sid = (await api(a.baseUrl, 'POST', '/api/v1/sessions', { metadata: { cwd: c.cwd } })).data.id;
  c.llm.setScript(heldStep);
  t.is((await api(a.baseUrl, 'POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'go' }] })).code, 0);
  const pid = await heldPid(t, c.cwd);
  t.is(await leaseOf(c.url, sid), 'node_a', 'the node running the turn holds the lease');
  // B follows A's turn while it runs: the session is busy there too, and B does not touch it.
  await until(async () => (await b.eventsOf(sid)).some((e) => e.type === 'tool.call.started' || e.type === 'turn.started'), 30_000);

  await killed(a.child, 'SIGKILL');
  const killedAt = Date.now();
  try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  const ended = await until(async () => (await b.eventsOf(sid)).find((e) => e.type === 'turn.ended'), 30_000, 'the turn ended by the takeover');
  const took = Date.now() - killedAt;
  t.log(`takeover: ${took} ms after kill -9 (lease time 10 s)`);
  t.true(took < 15_000, `taken over in ${took} ms`);
  t.like(ended!.payload, { reason: 'failed', error: { kind: 'interrupted' } });
  t.regex((ended!.payload as any).error.message, /another node took the session over/);

  const events = await b.eventsOf(sid);
  t.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), 'one stream, contiguous, nothing twice');
  const toolMsg = events.findIndex((e) => e.type === 'message.created' && (e.payload as any).message.role === 'tool');
  t.true(toolMsg >= 0 && toolMsg < events.findIndex((e) => e.type === 'turn.ended'), 'the open calls are answered before the turn ends');
  t.deepEqual((events[toolMsg]!.payload as any).message.content.map((r: any) => [r.tool_use_id, r.is_error]), [['k1', true], ['k2', true]]);

  // The next prompt, sent to B, runs there on a history the provider accepts.
  c.llm.setScript(scripts.helloText);
  const before = c.llm.requests.length;
  t.is((await b.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'after' }] })).code, 0);
  const done = await until(async () => (await b.eventsOf(sid)).filter((e) => e.type === 'turn.ended').at(1), 30_000, 'the next turn');
  t.is((done!.payload as any).reason, 'completed');
  t.is(c.llm.requests.length, before + 1);
  t.deepEqual(pairingProblems(c.llm.requests.at(-1)!), []);
  t.is(await leaseOf(c.url, sid), 'node_b');
});

test('a node that starts while another runs a turn leaves that turn alone; a prompt sent to it is forwarded to the owner', async (t) => {
  t.timeout(120_000);
  const c = await cluster(t);
  const a = await node(t, c, 'node_a');
  const sid = (await a.post('/api/v1/sessions', { metadata: { cwd: c.cwd } })).data.id;
  c.llm.setScript(heldStep);
  t.is((await a.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'go' }] })).code, 0);
  await heldPid(t, c.cwd);
  // B starts now: its start-up recovery sees the open turn, but A holds the lease.
  const b = await node(t, c, 'node_b');
  t.is(await leaseOf(c.url, sid), 'node_a');
  // A prompt for the session sent to B reaches A, the owner (forwarded: no second runtime on B); it queues there.
  t.is((await b.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'sent to B' }] })).code, 0);
  t.false(b.engine.holds(sid), 'B loaded no runtime for it');
  c.llm.setScript(scripts.helloText, scripts.helloText);
  await writeFile(path.join(c.cwd, 'go'), '');
  const ended = await until(async () => (await b.eventsOf(sid)).find((e) => e.type === 'turn.ended'), 30_000, 'the turn ended on A');
  t.is((ended!.payload as any).reason, 'completed', 'B did not end A\'s turn at its start');
  const both = await until(async () => {
    const e = (await a.eventsOf(sid)).filter((x) => x.type === 'turn.ended');
    return e.length === 2 ? e : undefined;
  }, 30_000, 'the prompt sent to B run on A');
  t.deepEqual(both!.map((e) => (e.payload as any).reason), ['completed', 'completed']);
  t.true(JSON.stringify(c.llm.requests.at(-1)).includes('sent to B'));
  const events = await a.eventsOf(sid);
  t.false(events.some((e) => e.type === 'turn.ended' && (e.payload as any).reason === 'failed'));
  t.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
});

test('a node that stops gracefully mid-turn: its leases end at once and another node settles the turn within a round', async (t) => {
  t.timeout(120_000);
  const c = await cluster(t);
  const { b, sid } = await stoppedMidTurn(t, c, async (a, id) => {
    c.llm.setScript(heldStep);
    t.is((await a.post(`/api/v1/sessions/${id}/prompts`, { content: [{ type: 'text', text: 'go' }] })).code, 0);
  });
  const stoppedAt = Date.now();
  const ended = await until(async () => (await b.eventsOf(sid)).find((e) => e.type === 'turn.ended'), 30_000, 'the turn settled by B');
  t.like(ended!.payload, { reason: 'failed', error: { kind: 'interrupted' } });
  // A lease left to expire would take at least 6 s; an ended one is taken on B's next round (every 2 s).
  t.true(Date.now() - stoppedAt < 5_000, 'within one round plus the settlement, not the lease time');
  t.is(await leaseOf(c.url, sid), undefined, 'B gives the lease back once the session is settled (it is idle)');
});

test('a takeover of a turn run for an active goal pauses the goal before ending the turn: the taking node does not continue it', async (t) => {
  t.timeout(120_000);
  const c = await cluster(t);
  let requests = 0;
  const { b, sid } = await stoppedMidTurn(t, c, async (a, id) => {
    // The goal starts work at once on A: its continuation's turn holds in the command.
    c.llm.setScript(heldStep, scripts.helloText, scripts.helloText);
    t.is((await a.post(`/api/v1/sessions/${id}/profile`, { agent_config: { goal_objective: 'Keep going' } })).code, 0);
  }, () => (requests = c.llm.requests.length));
  const ended = await until(async () => (await b.eventsOf(sid)).find((e) => e.type === 'turn.ended'), 30_000, 'the turn settled by B');
  t.like(ended!.payload, { reason: 'failed', error: { kind: 'interrupted' } });
  const goal = await until(async () => {
    const g = (await b.get(`/api/v1/sessions/${sid}/goal`)).data;
    return g?.status === 'active' ? undefined : g;
  }, 30_000, 'the goal settled by B');
  t.like(goal, { objective: 'Keep going', status: 'paused' }, 'paused, not blocked by the interrupted turn');
  // Had the turn ended first, B's goal driver would have queued a continuation (a prompt, a model request) at once.
  await new Promise((r) => setTimeout(r, 1_500));
  const events = await b.eventsOf(sid);
  const endedAt = events.findIndex((e) => e.type === 'turn.ended');
  t.deepEqual(events.slice(endedAt).filter((e) => e.type === 'prompt.accepted' || e.type === 'turn.started'), [], 'no continuation after the takeover');
  t.is(c.llm.requests.length, requests);
});
