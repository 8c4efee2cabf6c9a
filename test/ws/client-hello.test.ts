import test, { type ExecutionContext } from 'ava';
import { BACKENDS, serveOptions } from '../helpers/journal.ts';
import { newSession, serverFor, type TestServer, type WsClient } from '../helpers/server.ts';

// spec/clients.md E12: a web client re-subscribes after a reconnect through `client_hello` alone (its
// `subscriptions` and `cursors`), so the hello must do what a `subscribe` with cursors does: replay exactly what
// the cursor missed, or send `resync_required` (E9: with `current_seq`) when the cursor cannot be replayed; and
// answer code 0 with `accepted_subscriptions`, `resync_required` and `not_found`.

async function client(t: ExecutionContext, s: TestServer): Promise<WsClient> {
  const c = await s.ws();
  t.teardown(() => c.close());
  return c;
}

/** `n` durable session events (one journal batch each when `separate`), as a title change would journal them. */
async function appendEvents(s: TestServer, sid: string, n: number, separate = false) {
  const events = Array.from({ length: n }, (_, i) => ({ stream: sid, type: 'session.profile_updated' as const, payload: { title: `t${i}` } }));
  if (!separate) return s.journal.append(events);
  for (const e of events) await s.journal.append([e]);
}

const head = (s: TestServer, sid: string) => s.journal.head(sid)!;
const durable = (c: WsClient, sid: string) => c.frames.filter((f) => f.session_id === sid && typeof f.seq === 'number' && !f.volatile && f.type !== 'ack');

// The replay reads the journal: the same tests on both backends.
for (const backend of BACKENDS) {
  test(`[${backend}] client_hello with a valid non-zero cursor replays exactly the missed events, after the ack, then goes live`, async (t) => {
    const s = await serverFor(t, { options: await serveOptions(backend) });
    const sid = await newSession(s);
    await appendEvents(s, sid, 3, true);
    const seen = head(s, sid);
    await appendEvents(s, sid, 5, true);
    const missed = (await s.eventsOf(sid, seen.seq + 1)).map((e) => e.seq);
    t.is(missed.length, 5);

    const c = await client(t, s);
    const ack = await c.request('client_hello', { client_id: 'web_1', subscriptions: [sid], cursors: { [sid]: { seq: seen.seq, epoch: seen.epoch } } });
    t.deepEqual(ack.payload.accepted_subscriptions, [sid]);
    t.deepEqual(ack.payload.resync_required, []);
    t.deepEqual(ack.payload.not_found, []);
    await c.waitFor((f) => f.session_id === sid && f.seq === missed.at(-1));
    await appendEvents(s, sid, 1);
    const live = head(s, sid).seq;
    await c.waitFor((f) => f.session_id === sid && f.seq === live);
    t.deepEqual(durable(c, sid).map((f) => f.seq), [...missed, live], 'each missed event once, in order, then the live one');
    t.true(c.frames.indexOf(ack) < c.frames.findIndex((f) => f.session_id === sid && f.type !== 'ack'), 'ack first, then the replay');
    t.false(c.frames.some((f) => f.type === 'resync_required'));

    // A cursor without an epoch (clients.md A3: `epoch?`) is taken in the stream's current epoch.
    const d = await client(t, s);
    const ack2 = await d.request('client_hello', { client_id: 'web_2', subscriptions: [sid], cursors: { [sid]: { seq: live - 2 } } });
    t.deepEqual(ack2.payload.resync_required, []);
    await d.waitFor((f) => f.session_id === sid && f.seq === live);
    t.deepEqual(durable(d, sid).map((f) => f.seq), [live - 1, live]);
  });

  test(`[${backend}] client_hello with a stale cursor or a wrong epoch: resync_required (ack and frame, with current_seq), still subscribed live`, async (t) => {
    const s = await serverFor(t, { options: await serveOptions(backend) });
    const far = await newSession(s);
    const moved = await newSession(s);
    await appendEvents(s, far, 1100);
    await appendEvents(s, moved, 2);
    const farHead = head(s, far);
    const movedHead = head(s, moved);

    const c = await client(t, s);
    const ack = await c.request('client_hello', {
      client_id: 'web_1', subscriptions: [far, moved],
      cursors: { [far]: { seq: 1, epoch: farHead.epoch }, [moved]: { seq: 1, epoch: '01STALEEPOCH0000000000000' } },
    });
    t.is(ack.code, 0);
    t.deepEqual(ack.payload.accepted_subscriptions, [far, moved]);
    t.deepEqual(ack.payload.resync_required, [far, moved]);
    t.deepEqual(ack.payload.not_found, []);
    const resyncOf = (sid: string) => c.waitFor((f) => f.type === 'resync_required' && f.session_id === sid);
    t.like((await resyncOf(far)).payload, { session_id: far, reason: 'too_far_behind', current_seq: farHead.seq, head_seq: farHead.seq, epoch: farHead.epoch });
    t.like((await resyncOf(moved)).payload, { session_id: moved, reason: 'epoch_mismatch', current_seq: movedHead.seq, epoch: movedHead.epoch });
    t.is(durable(c, far).length + durable(c, moved).length, 0, 'nothing replayed');
    // Subscribed all the same: the next event of each arrives live.
    await appendEvents(s, far, 1);
    await appendEvents(s, moved, 1);
    t.is((await c.waitFor((f) => f.session_id === far && f.seq === farHead.seq + 1)).type, 'session.profile_updated');
    t.is((await c.waitFor((f) => f.session_id === moved && f.seq === movedHead.seq + 1)).type, 'session.profile_updated');
  });
}

test('client_hello: unknown sessions (in subscriptions or only in cursors) are in not_found, code 0; the known ones are subscribed', async (t) => {
  const s = await serverFor(t);
  const sid = await newSession(s);
  const only = await newSession(s);
  const c = await client(t, s);
  const ack = await c.request('client_hello', {
    client_id: 'web_1', subscriptions: [sid, 'session_unknown1'],
    cursors: { session_unknown2: { seq: 3 }, [only]: { seq: head(s, only).seq } },
  });
  t.is(ack.code, 0);
  t.deepEqual(ack.payload.accepted_subscriptions, [sid, only]);
  t.deepEqual(ack.payload.not_found.sort(), ['session_unknown1', 'session_unknown2']);
  t.deepEqual(ack.payload.resync_required, []);
  t.deepEqual((await s.get(`/api/v1/connections`)).data.connections.find((x: any) => x.has_client_hello).subscriptions.sort(), [sid, only].sort());
  await appendEvents(s, only, 1);
  await c.waitFor((f) => f.session_id === only && f.seq === head(s, only).seq);
  // A plain hello subscribes nothing.
  const bare = await client(t, s);
  t.like((await bare.request('client_hello', { client_id: 'web_2' })).payload, { accepted_subscriptions: [], resync_required: [], not_found: [] });
});
