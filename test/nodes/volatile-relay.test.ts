import { EventEmitter } from 'node:events';
import test from 'ava';
import pino from 'pino';
import { VolatileBus } from '../../src/events/volatile-bus.ts';
import { VOLATILE_CHANNEL, VolatileRelay } from '../../src/nodes/volatile-relay.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';
import { until } from '../helpers/wait.ts';

// The volatile relay between nodes (docs/scale-out.md "Streaming across nodes"): a frame is delivered on the
// receiving node only while it has followed exactly what the sender had when it published (the frame's stamp):
// held while behind, dropped once past (a late delta would add its step's text twice).

/** A journal as the relay sees it: each stream's head, moved by the test, with the `committed` it emits. */
class Heads extends EventEmitter {
  readonly seq = new Map<string, number>();
  headSeq(stream: string): number {
    return this.seq.get(stream) ?? 0;
  }
  commit(stream: string, seq: number): void {
    this.seq.set(stream, seq);
    this.emit('committed', [{ stream }]);
  }
}

async function pair(t: { teardown(fn: () => unknown): void }) {
  const url = await freshDatabase();
  const log = pino({ level: 'silent' });
  const node = (nodeId: string) => {
    const bus = new VolatileBus();
    const journal = new Heads();
    const got: string[] = [];
    // The probe frames of the handshake below may still arrive after it: left out.
    bus.subscribe((sid, type, payload) => { if (sid !== 'probe') got.push(`${type}:${(payload as { text: string }).text}`); });
    // The other node is alive throughout (the directory's answer: test/nodes/lone-node covers the lone case).
    const heard = { count: 0 };
    const relay = new VolatileRelay({ url, nodeId, bus, journal, log, peers: { othersAlive: () => true, heardFromOther: () => void heard.count++ } });
    t.teardown(() => relay.stop());
    return { bus, journal, got, relay, heard };
  };
  const a = node('node_a');
  const b = node('node_b');
  const probed: string[] = [];
  b.bus.subscribe((sid) => { if (sid === 'probe') probed.push(sid); });
  // Both connected: a frame sent before B listens is lost (volatile), so wait until one crosses.
  await until(async () => {
    a.bus.publish('probe', 'assistant.delta', { agent_id: 'main', turn_id: 't0', step: 1, text: 'ping', offset: 0 }, 0);
    await new Promise((r) => setTimeout(r, 50));
    return probed.length > 0;
  }, 20_000, 'the relay connected');
  return { url, a, b };
}

const delta = (text: string, offset: number) => ({ agent_id: 'main', turn_id: 't1', step: 1, text, offset });

test('frames at the receiver\'s seq are delivered in order; behind, they wait for the commit; past it, they are dropped', async (t) => {
  const { a, b } = await pair(t);
  a.journal.commit('s1', 5);
  b.journal.commit('s1', 5);
  a.bus.publish('s1', 'assistant.delta', delta('one ', 0), 0);
  a.bus.publish('s1', 'assistant.delta', delta('two ', 4), 4);
  await until(() => b.got.length === 2, 10_000, 'delivered');
  t.deepEqual(b.got, ['assistant.delta:one ', 'assistant.delta:two ']);
  t.deepEqual(a.got, ['assistant.delta:one ', 'assistant.delta:two '], 'the sender\'s own subscribers once, nothing echoed back');

  // The sender moved on (its step.started at 6); the receiver has not followed it yet: held, then delivered.
  a.journal.commit('s1', 6);
  a.bus.publish('s1', 'assistant.delta', delta('three', 0), 0);
  await new Promise((r) => setTimeout(r, 300));
  t.is(b.got.length, 2, 'held while behind');
  b.journal.commit('s1', 6);
  t.deepEqual(b.got.at(-1), 'assistant.delta:three');

  // The receiver is past the sender's stamp (the step is committed there already): a late frame is dropped.
  b.journal.commit('s1', 8);
  a.bus.publish('s1', 'assistant.delta', delta('late', 5), 5);
  // ...and one held while behind is dropped when the receiver's head jumps past it.
  a.journal.commit('s2', 3);
  a.bus.publish('s2', 'assistant.delta', delta('skipped', 0), 0);
  await new Promise((r) => setTimeout(r, 300));
  b.journal.commit('s2', 4);
  // A frame the receiver takes, sent after them: the ones before it have been judged by then.
  a.journal.commit('s1', 8);
  a.bus.publish('s1', 'assistant.delta', { ...delta('marker', 0), turn_id: 't2' }, 0);
  await until(() => b.got.includes('assistant.delta:marker'), 10_000, 'the marker');
  t.false(b.got.includes('assistant.delta:late'));
  t.false(b.got.includes('assistant.delta:skipped'));
});

test('a long streamed text crosses in pieces under the NOTIFY size limit, its offsets moved along', async (t) => {
  const { a, b } = await pair(t);
  const long = 'é'.repeat(5_000);
  const seen: Array<{ text: string; offset: number }> = [];
  b.bus.subscribe((sid, _type, payload) => { if (sid === 's1') seen.push(payload as { text: string; offset: number }); });
  a.bus.publish('s1', 'assistant.delta', delta(long, 100), 100);
  await until(() => seen.map((p) => p.text).join('').length === long.length, 10_000, 'every piece');
  t.true(seen.length > 1);
  t.is(seen.map((p) => p.text).join(''), long);
  let at = 100;
  for (const p of seen) {
    t.is(p.offset, at);
    at += p.text.length;
  }
});

test('a hello (another node\'s LISTEN came up) counts that node alive and delivers nothing; a node\'s own is not counted', async (t) => {
  const { url, a, b } = await pair(t);
  t.true(b.heard.count > 0, 'B heard A\'s frames');
  const hello = (n: string) => sql(url, 'SELECT pg_notify($1, $2)', [VOLATILE_CHANNEL, JSON.stringify({ n, h: true })]);
  // Notifications arrive in commit order: once a hello sent now is heard, the relays' own hellos (sent when they
  // connected) have been heard too, and once node_c's is heard below, node_a's own was handled before it.
  const synced = { a: a.heard.count, b: b.heard.count };
  await hello('node_c');
  await until(() => a.heard.count > synced.a && b.heard.count > synced.b, 10_000, 'the first hello heard');
  const before = { a: a.heard.count, b: b.heard.count };
  await hello('node_a');
  await hello('node_c');
  await until(() => a.heard.count > before.a && b.heard.count >= before.b + 2, 10_000, 'the hellos heard');
  t.is(a.heard.count, before.a + 1, 'only node_c\'s');
  t.is(b.heard.count, before.b + 2);
  t.deepEqual([a.got, b.got], [[], []], 'no delivery');
});
