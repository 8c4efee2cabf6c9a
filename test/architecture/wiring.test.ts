import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../helpers/built.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Logger } from '../../src/lib/logger.ts';
import { registerSubscribers, type CommittedSubscriber } from '../../src/app/subscribers.ts';
import { tempDir } from '../helpers/fs.ts';
import { openJournal } from '../helpers/journal.ts';
import { serverFor } from '../helpers/server.ts';

const event = (i: number) => ({ stream: 's', type: 'test.event', payload: { i } });

test('a subscriber that throws or rejects is logged by name; the others and the journal carry on', async (t) => {
  const journal = await openJournal(t);
  const logged: Array<{ subscriber: unknown; msg: string }> = [];
  const log = { error: (obj: { subscriber?: unknown }, msg: string) => logged.push({ subscriber: obj.subscriber, msg }) } as unknown as Logger;
  const seen: number[] = [];
  const subscribers: CommittedSubscriber[] = [
    { name: 'throws', onCommitted: () => { throw new Error('boom'); } },
    { name: 'rejects', onCommitted: async () => { throw new Error('later boom'); } },
    { name: 'records', onCommitted: (events: JournalEvent[]) => { seen.push(...events.map((e) => e.seq)); } },
  ];
  const unsubscribe = registerSubscribers(journal, subscribers, log);
  await journal.append([event(1)]);
  await journal.append([event(2), event(3)]);
  t.deepEqual(seen, [1, 2, 3], 'the subscriber after the failing ones saw every batch');
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(logged.map((l) => l.subscriber), ['throws', 'rejects', 'throws', 'rejects']);
  unsubscribe();
  await journal.append([event(4)]);
  t.deepEqual(seen, [1, 2, 3], 'nothing runs once unsubscribed');
  t.is(journal.failure, null);
});

test('another node\'s commits reach the readers (remote), the followers of a local reaction (onFollowed) and no other reaction', async (t) => {
  const journal = await openJournal(t);
  const log = { error: () => undefined } as unknown as Logger;
  const got: string[] = [];
  const note = (name: string) => (events: JournalEvent[]) => { got.push(`${name}:${events.map((e) => e.seq).join(',')}`); };
  registerSubscribers(journal, [
    { name: 'reaction', onCommitted: note('reaction') },
    { name: 'reader', onCommitted: note('reader'), remote: true },
    { name: 'goals', onCommitted: note('goals'), onFollowed: note('goals followed') },
  ], log);
  await journal.append([event(1)]);
  t.deepEqual(got.splice(0), ['reaction:1', 'reader:1', 'goals:1'], 'a local commit: every subscriber, by onCommitted');
  const followed = [{ stream: 's', seq: 2, epoch: 'e', type: 'test.event', ts: new Date().toISOString(), payload: { i: 2 } }];
  journal.emit('committed', followed, 'remote');
  t.deepEqual(got, ['reader:2', 'goals followed:2'], 'a followed commit: the readers, and onFollowed instead of onCommitted');
});

test('the journal stamps ts and mints epochs with the clock and id source it is given', async (t) => {
  const at = new Date('2031-02-03T04:05:06.000Z');
  const journal = await openJournal(t, { clock: { now: () => at }, newEpoch: () => '01JEPOCH0000000000000000000' });
  const [e] = await journal.append([event(1)]);
  t.is(e!.ts, at.toISOString());
  t.is(e!.epoch, '01JEPOCH0000000000000000000');
  t.like(journal.head('s'), { created_at: at.toISOString(), epoch: '01JEPOCH0000000000000000000' });
});

test('a server started with a clock stamps events and records with it', async (t) => {
  const s = await serverFor(t);
  s.clock.set('2032-01-01T00:00:00.000Z');
  const created = await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } });
  t.is(created.code, 0);
  t.is(created.data.created_at, '2032-01-01T00:00:00.000Z');
  const [first] = await s.eventsOf(created.data.id);
  t.is(first!.ts, '2032-01-01T00:00:00.000Z');
  t.regex(created.data.id, /^session_[0-9A-HJKMNP-TV-Z]{26}$/);
});

test('test files reach the server only through the facade: never its parts whole (test/helpers/server.ts)', async (t) => {
  const found: string[] = [];
  for (const d of await readdir(path.join(ROOT, 'test'), { withFileTypes: true, recursive: true })) {
    if (!d.isFile() || !d.name.endsWith('.ts')) continue;
    const file = path.relative(ROOT, path.join(d.parentPath, d.name));
    if (file === path.join('test', 'helpers', 'server.ts')) continue;
    const text = await readFile(path.join(ROOT, file), 'utf8');
    // The server's parts by their old name (RunningServer's `services`, the `Services` type) or their name now (`parts`).
    const reach = /\bserver\.(services|parts)\b|\bimport\b[^;]*\b(Services|ServerParts)\b/.exec(text);
    if (reach) found.push(`${file}: ${reach[0]}`);
  }
  t.deepEqual(found, []);
});
