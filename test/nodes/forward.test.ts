import test, { type ExecutionContext } from 'ava';
import http from 'node:http';
import net from 'node:net';
import type { FixtureLlm } from '../../fixtures/llm/index.ts';
import { commandMatcher, FORWARDED_HEADER } from '../../src/http/forward.ts';
import type { OwnerLookup } from '../../src/nodes/types.ts';
import { engineConfig, fixtureLlm } from '../helpers/llm.ts';
import { sql } from '../helpers/pg.ts';
import { ids, twoNodes } from '../helpers/pg-nodes.ts';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// Commands on any node (src/http/forward.ts, docs/scale-out.md): two real nodes on one PostgreSQL journal, each with
// its own fixture LLM. The owner lookups are stubs that name a chosen node, so each test decides who owns the
// session; test/nodes/three-nodes and takeover forward on the real session leases.

const PROMPT = { content: [{ type: 'text', text: 'hi' }] };

/** An owner lookup that names `node` for every session. */
const ownedBy = (node: string): OwnerLookup => ({ ownerElsewhere: async () => node });

/** Two nodes, each with its own fixture LLM, and a session created on A that B has followed. */
async function nodesWithSession(t: Parameters<typeof twoNodes>[0], owners: { a?: OwnerLookup; b?: OwnerLookup }) {
  const llmA = await fixtureLlm(t);
  const llmB = await fixtureLlm(t);
  llmA.setScript({ events: [{ text: 'answered on node A' }] });
  llmB.setScript({ events: [{ text: 'answered on node B' }] });
  const { url, a, b } = await twoNodes(t, {
    nodes: { node_a: { config: engineConfig(llmA.url), owners: owners.a }, node_b: { config: engineConfig(llmB.url), owners: owners.b } },
  });
  const sid = await newSession(a);
  await until(async () => (await ids(b, 'sessions')).includes(sid), 30_000);
  return { url, a, b, llmA, llmB, sid };
}

const turnEnded = async (s: TestServer, sid: string) => (await s.eventsOf(sid)).some((e) => e.type === 'turn.ended');

interface Node { server: TestServer; llm: FixtureLlm }

/** The session's turn ran on `on` (its model asked, its runtime loaded), and `off` neither asked its model nor loaded the session. */
async function ranOn(t: ExecutionContext, sid: string, on: Node, off: Node): Promise<void> {
  await until(() => turnEnded(on.server, sid), 60_000, 'the turn ended where it ran');
  t.true(on.llm.requests.length > 0, 'the running node\'s model was asked');
  t.truthy(on.server.engine.get(sid), 'the running node holds the session\'s runtime');
  t.is(off.llm.requests.length, 0, 'the other node\'s model was not asked');
  t.is(off.server.engine.get(sid), undefined, 'the other node loaded no runtime');
}

test('a prompt sent to B, whose session A owns, runs on A: A\'s model is asked, B loads no runtime, A\'s answer comes back unchanged', async (t) => {
  t.timeout(180_000);
  const { a, b, llmA, llmB, sid } = await nodesWithSession(t, { b: ownedBy('node_a') });
  const requestId = '01JF0RWARD0000000000000000';
  const res = await b.req('POST', `/api/v1/sessions/${sid}/prompts`, PROMPT, { 'X-Request-Id': requestId });
  t.is(res.status, 200);
  t.is(res.body.code, 0, JSON.stringify(res.body));
  t.is(res.body.request_id, requestId, 'the client\'s request id reaches the owner');
  t.is(res.headers.get('x-request-id'), requestId);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  await ranOn(t, sid, { server: a, llm: llmA }, { server: b, llm: llmB });
  // The prompt B answered with is the one A accepted.
  const accepted = (await a.eventsOf(sid)).find((e) => e.type === 'prompt.accepted');
  t.is((accepted?.payload as { prompt_id?: string }).prompt_id, res.body.data.prompt_id);
});

test('other session commands sent to B run on A too (a fork into a :btw agent, an abort, a profile change)', async (t) => {
  t.timeout(180_000);
  const { a, b, sid } = await nodesWithSession(t, { b: ownedBy('node_a') });
  const btw = await b.req('POST', `/api/v1/sessions/${sid}:btw`, {});
  t.is(btw.body.code, 0, JSON.stringify(btw.body));
  t.truthy(a.engine.get(sid), 'the fork loaded the session\'s runtime on A');
  const abort = await b.req('POST', `/api/v1/sessions/${sid}:abort`, {});
  t.deepEqual(abort.body.data, { aborted: true });
  const profile = await b.req('POST', `/api/v1/sessions/${sid}/profile`, { title: 'renamed through B' });
  t.is(profile.body.code, 0, JSON.stringify(profile.body));
  t.is(profile.body.data.title, 'renamed through B');
  t.is((await a.get(`/api/v1/sessions/${sid}`)).data.title, 'renamed through B', 'A answered once it had journaled the change');
  t.is(b.engine.get(sid), undefined, 'B never loaded a runtime');
});

test('a forwarded request is never forwarded again: A handles it although its own lookup names B', async (t) => {
  t.timeout(180_000);
  // Each names the other: without the loop header the request would bounce between them.
  const { a, b, llmA, llmB, sid } = await nodesWithSession(t, { a: ownedBy('node_b'), b: ownedBy('node_a') });
  const res = await b.req('POST', `/api/v1/sessions/${sid}/prompts`, PROMPT);
  t.is(res.body.code, 0, JSON.stringify(res.body));
  await ranOn(t, sid, { server: a, llm: llmA }, { server: b, llm: llmB });
});

test('a request that carries the forwarded header is handled where it arrives', async (t) => {
  t.timeout(180_000);
  const { a, b, llmA, llmB, sid } = await nodesWithSession(t, { b: ownedBy('node_a') });
  const res = await b.req('POST', `/api/v1/sessions/${sid}/prompts`, PROMPT, { [FORWARDED_HEADER]: 'node_z' });
  t.is(res.body.code, 0, JSON.stringify(res.body));
  await ranOn(t, sid, { server: b, llm: llmB }, { server: a, llm: llmA });
});

test('the owner gone: 50001 with details {reason: owner_unreachable, node_id}, for a stopped node, a refused connection and a dead node (its heartbeat older than the TTL)', async (t) => {
  t.timeout(180_000);
  let owner = 'node_a';
  const { url, a, b, llmA, llmB, sid } = await nodesWithSession(t, { b: { ownerElsewhere: async () => owner } });
  await a.stop();
  const stopped = await b.req('POST', `/api/v1/sessions/${sid}/prompts`, PROMPT);
  t.is(stopped.status, 200);
  t.like(stopped.body, { code: 50001, details: { reason: 'owner_unreachable', node_id: 'node_a' } });
  t.regex(stopped.body.msg, /node_a/);

  // A node listed at an address where nothing listens any more.
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((r) => closed.close(r));
  await sql(url, 'INSERT INTO journal_nodes (node_id, url) VALUES ($1, $2)', ['node_c', `http://127.0.0.1:${port}`]);
  owner = 'node_c';
  const refused = await b.req('POST', `/api/v1/sessions/${sid}/approvals/approval_x`, { decision: 'approve' });
  t.like(refused.body, { code: 50001, details: { reason: 'owner_unreachable', node_id: 'node_c' } });
  // A body over the routes' limit is refused as they refuse it, before any attempt to reach the owner.
  const huge = { content: [{ type: 'text', text: 'x'.repeat(17 * 1024 * 1024) }] };
  const tooLarge = await b.req('POST', `/api/v1/sessions/${sid}/prompts`, huge);
  t.like(tooLarge.body, { code: 40001, details: [{ field: 'body' }] });
  // A node that died without removing its row (kill -9): its heartbeat is older than the lease time. Nothing is
  // tried at its URL (here a server that would answer anything).
  const reached: string[] = [];
  const stale = http.createServer((req, res) => { reached.push(req.url!); res.end('{}'); });
  await new Promise<void>((r) => stale.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => stale.close(() => r(undefined))));
  const staleUrl = `http://127.0.0.1:${(stale.address() as net.AddressInfo).port}`;
  await sql(url, "INSERT INTO journal_nodes (node_id, url, heartbeat_at) VALUES ($1, $2, now() - interval '1 hour')", ['node_d', staleUrl]);
  owner = 'node_d';
  const dead = await b.req('POST', `/api/v1/sessions/${sid}:abort`, {});
  t.like(dead.body, { code: 50001, details: { reason: 'owner_unreachable', node_id: 'node_d' } });
  t.regex(dead.body.msg, /heartbeat is older than the lease time/);
  t.deepEqual(reached, []);
  t.is(llmA.requests.length + llmB.requests.length, 0);
  t.is(b.engine.get(sid), undefined);
});

test('the token is required before a command is forwarded, and on the forwarded request at the owner', async (t) => {
  t.timeout(180_000);
  const { a, b, sid } = await nodesWithSession(t, { b: ownedBy('node_a') });
  const headBefore = a.journal.headSeq(sid);
  const post = (s: TestServer, headers: Record<string, string>) => fetch(`${s.baseUrl}/api/v1/sessions/${sid}/prompts`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(PROMPT),
  });
  const noToken = await post(b, {});
  t.is(noToken.status, 401);
  const wrongToken = await post(b, { Authorization: 'Bearer not-the-token' });
  t.is(wrongToken.status, 401);
  // The loop header is no way around the token at the owner.
  const forwardedNoToken = await post(a, { [FORWARDED_HEADER]: 'node_b' });
  t.is(forwardedNoToken.status, 401);
  t.is(a.journal.headSeq(sid), headBefore, 'nothing reached the session');
});

test('the forwarded commands are matched by their declared paths; reads and other commands are not', async (t) => {
  const s = await serverFor(t);
  const match = commandMatcher(s.routes);
  const sid = 'session_01JX';
  for (const [method, path] of [
    ['POST', `/api/v1/sessions/${sid}/prompts`], ['POST', `/api/v1/sessions/${sid}/prompts:steer`],
    ['POST', `/api/v1/sessions/${sid}/prompts/prompt_1:abort`], ['POST', `/api/v1/sessions/${sid}/prompts/prompt_1:steer`],
    ['POST', `/api/v1/sessions/${sid}/approvals/approval_1`], ['POST', `/api/v1/sessions/${sid}/questions/question_1`],
    ['POST', `/api/v1/sessions/${sid}/questions/question_1:dismiss`], ['POST', `/api/v1/sessions/${sid}:abort`],
    ['POST', `/api/v1/sessions/${sid}:compact`], ['POST', `/api/v1/sessions/${sid}:undo`], ['POST', `/api/v1/sessions/${sid}:btw`],
    ['POST', `/api/v1/sessions/${sid}/tasks/task_1:cancel`], ['POST', `/api/v1/sessions/${sid}/tasks/task_1:detach`],
    ['POST', `/api/v1/sessions/${sid}/skills/review:activate`], ['POST', `/api/v1/sessions/${sid}/profile`],
  ]) t.is(match(method, path), sid, `${method} ${path}`);
  for (const [method, path] of [
    ['GET', `/api/v1/sessions/${sid}/prompts`], ['GET', `/api/v1/sessions/${sid}`], ['POST', '/api/v1/sessions'],
    ['POST', `/api/v1/sessions/${sid}:archive`], ['POST', `/api/v1/sessions/${sid}/prompts/extra`],
    ['GET', `/api/v1/sessions/${sid}/messages`], ['POST', `/api/v1/sessions/${sid}/approvals/a/b`],
  ]) t.is(match(method, path), undefined, `${method} ${path}`);
});
