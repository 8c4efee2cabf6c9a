import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { VOLATILE_CHANNEL } from '../../src/nodes/volatile-relay.ts';
import { engineConfig, fixtureLlm } from '../helpers/llm.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';
import { newSession, startTestServer, tempHome, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// The volatile relay of a node alone on PostgreSQL sends nothing (docs/scale-out.md "Streaming across nodes"): no
// pg_notify per batch of deltas for nobody. A second node says hello when its LISTEN is up, and the first
// streams to it from its next turn on, without waiting for its heartbeat (TTL/3: 20 s here).

type Sent = { n: string; f?: unknown[]; h?: true };

/** Every message on the relay's channel, as a listener of the test's own sees it. */
async function channelSpy(t: { teardown(fn: () => unknown): void }, url: string): Promise<Sent[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  const sent: Sent[] = [];
  client.on('notification', (msg) => { if (msg.channel === VOLATILE_CHANNEL) sent.push(JSON.parse(msg.payload!) as Sent); });
  await client.query(`LISTEN ${VOLATILE_CHANNEL}`);
  return sent;
}

/**
 * Waits until whatever the daemons sent before now has reached the spy: a marker NOTIFY sent after it arrives
 * after it (the relay sends each batch as soon as the one before it has gone; the marker goes once the pause has passed).
 */
async function drained(url: string, sent: Sent[]): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  const marker = `marker_${sent.length}_${Date.now()}`;
  await sql(url, 'SELECT pg_notify($1, $2)', [VOLATILE_CHANNEL, JSON.stringify({ n: marker })]);
  await until(() => sent.some((m) => m.n === marker), 10_000, 'the marker');
}

test('a lone node streams a turn to its own subscribers and sends no NOTIFY; a second node gets the next turn\'s deltas', async (t) => {
  t.timeout(120_000);
  const llm = await fixtureLlm(t);
  const url = await freshDatabase();
  const sent = await channelSpy(t, url);
  const start = async (nodeId: string): Promise<TestServer> => {
    const home = await tempHome();
    await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url));
    // A long TTL: the heartbeat (every 20 s) does not see the second node within the test; only its hello can.
    const s = await startTestServer({ home, options: { journalUrl: url }, env: { SVC_CODE_NODE_ID: nodeId, SVC_CODE_LEASE_TTL_MS: '60000' } });
    t.teardown(() => s.stop());
    return s;
  };
  /**
   * A turn on `on` streaming `words`, watched by `watcher`: its deltas. The step is held open (before the reply's
   * finish) until the watcher has every delta, or 10 s passed: a relayed frame that arrives after its step was
   * committed on the receiver is dropped by design, and a fast fixture on a loaded machine could race it
   * (test/journal/pg-nodes checks the deltas without a hold).
   */
  const turn = async (on: TestServer, sid: string, watcher: Awaited<ReturnType<TestServer['ws']>>, words: string[]) => {
    const from = watcher.frames.length;
    const deltas = () => watcher.frames.slice(from).filter((f) => f.session_id === sid && f.type === 'assistant.delta');
    const streamed = until(() => deltas().map((f) => f.payload.text).join('') === words.join(''), 10_000).catch(() => undefined);
    // Frames of a chat completion: the role, one per word, then the finish.
    llm.setScript({ events: words.map((text) => ({ text })), hold: [{ after: 1 + words.length, until: streamed }] });
    const res = await on.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'hi' }] });
    t.is(res.code, 0);
    await watcher.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid && f.payload.prompt_id === res.data.prompt_id, 60_000);
    return deltas();
  };

  const a = await start('node_a');
  const sid = await newSession(a);
  const onA = await a.ws();
  t.teardown(() => onA.close());
  t.is((await onA.request('subscribe', { session_ids: [sid] })).code, 0);
  const alone = await turn(a, sid, onA, ['hello ', 'from ', 'a lone node']);
  t.is(alone.map((f) => f.payload.text).join(''), 'hello from a lone node', 'streamed to its own subscriber');
  await drained(url, sent);
  t.deepEqual(sent.filter((m) => m.f), [], 'no frame sent for nobody');

  const b = await start('node_b');
  await until(() => b.journal.hasStream(sid), 30_000, 'B followed the session');
  const onB = await b.ws();
  t.teardown(() => onB.close());
  t.is((await onB.request('subscribe', { session_ids: [sid] })).code, 0);
  await until(() => sent.some((m) => m.n === 'node_b' && m.h), 10_000, 'B said hello');
  const crossed = await turn(a, sid, onB, ['now ', 'B ', 'listens']);
  t.is(crossed.map((f) => f.payload.text).join(''), 'now B listens', 'A streamed to B');
  t.true(sent.some((m) => m.n === 'node_a' && m.f?.length), 'as NOTIFY frames');
});
