import net from 'node:net';
import test from 'ava';
import { Journal } from '../../journal/journal.ts';
import { JournalStoreError } from '../../journal/errors.ts';
import { JournalOpenError, openPgStore } from '../../journal/pg/open.ts';
import { SCHEMA_VERSION } from '../../journal/pg/schema.ts';
import { StreamConflictError } from '../../journal/store.ts';
import { cli } from '../helpers/cli.ts';
import { openStore } from '../helpers/journal.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';
import { pgRelay } from '../helpers/pg-relay.ts';
import { tempHome } from '../helpers/server.ts';

// What only the PostgreSQL backend has: migrations, a second writer refused, and clear errors at start.

const ev = (stream: string, i: number) => ({ stream, type: 'test.event', payload: { i } });
const onError = () => undefined;

async function journalOn(t: { teardown(fn: () => unknown): void }, url: string): Promise<Journal> {
  const j = new Journal({ store: await openStore('postgres', url) });
  await j.load();
  t.teardown(() => j.close().catch(() => undefined)); // a journal failed on purpose may refuse its drain
  return j;
}

test('migrations are versioned and idempotent; a schema from a newer version is refused with a clear error', async (t) => {
  const url = await freshDatabase();
  await (await openPgStore(url, { onError })).close();
  await (await openPgStore(url, { onError })).close();
  const { rows } = await sql(url, 'SELECT version FROM journal_schema ORDER BY version');
  t.deepEqual(rows.map((r) => r.version), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  await sql(url, 'INSERT INTO journal_schema (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
  const err = await t.throwsAsync(openPgStore(url, { onError }), { instanceOf: JournalOpenError });
  t.regex(err!.message, new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than this svc-code supports`));
});

test('seq is checked in the database: a second writer of a stream is refused and nothing of its batch is written', async (t) => {
  const url = await freshDatabase();
  const a = await journalOn(t, url);
  const b = await journalOn(t, url);
  await a.append([ev('s', 1)]);
  // b loaded its heads before a wrote: it believes `s` is new, then that it is at seq 0.
  const refused = await t.throwsAsync(b.append([ev('s', 2), ev('other', 1)]), { instanceOf: JournalStoreError });
  t.true(refused!.cause instanceof StreamConflictError, String(refused!.cause));
  const c = await journalOn(t, url);
  t.deepEqual((await c.readRange('s', 1)).map((e) => e.payload), [{ i: 1 }]);
  t.false(c.hasStream('other'), 'the refused batch left nothing, not even its other streams');
  // An existing stream moved by another writer: refused on the head check.
  const d = await journalOn(t, url);
  await c.append([ev('s', 3)]);
  await t.throwsAsync(d.append([ev('s', 4)]), { instanceOf: JournalStoreError });
  t.deepEqual((await (await journalOn(t, url)).readRange('s', 1)).map((e) => e.seq), [1, 2]);
});

test('appends of one group commit land in one transaction with increasing global positions', async (t) => {
  const url = await freshDatabase();
  const j = await journalOn(t, url);
  await Promise.all([j.append([ev('a', 1)]), j.append([ev('b', 1), ev('a', 2)]), j.append([ev('a', 3)])]);
  const { rows } = await sql(url, 'SELECT stream, seq, xmin::text AS tx FROM journal_events ORDER BY position');
  t.deepEqual(rows.map((r) => `${r.stream}${r.seq}`), ['a1', 'b1', 'a2', 'a3']);
  t.true(new Set(rows.slice(1).map((r) => r.tx)).size === 1, 'the appends queued behind the first share one transaction');
});

test('the database going away while running: a write retries within its bound, then fails the journal; nothing half-written', async (t) => {
  const url = await freshDatabase();
  const relay = await pgRelay(t, url);
  const j = new Journal({ store: await openPgStore(relay.url, { onError, retryMs: 1_500, connectTimeoutMs: 1_000 }) });
  await j.load();
  t.teardown(() => j.close().catch(() => undefined));
  await j.append([ev('s', 1)]);
  await relay.cut();
  await t.throwsAsync(j.append([ev('s', 2), ev('s', 3)]), { instanceOf: JournalStoreError });
  await t.throwsAsync(j.append([ev('s', 4)]), { instanceOf: JournalStoreError }, 'the journal stays failed until a restart');
  const again = await journalOn(t, url);
  t.is(again.headSeq('s'), 1);
  t.deepEqual((await sql(url, 'SELECT count(*)::int AS n FROM journal_events')).rows[0].n, 1);
});

test('the database coming back within the bound: the write goes through, once', async (t) => {
  const url = await freshDatabase();
  const relay = await pgRelay(t, url);
  const j = new Journal({ store: await openPgStore(relay.url, { onError, retryMs: 60_000, connectTimeoutMs: 1_000 }) });
  await j.load();
  t.teardown(() => j.close());
  await j.append([ev('s', 1)]);
  await relay.cut();
  const pending = j.append([ev('s', 2)]);
  setTimeout(() => void relay.restore(), 700);
  t.is((await pending)[0].seq, 2);
  const { rows } = await sql(url, "SELECT seq FROM journal_events WHERE stream = 's' ORDER BY seq");
  t.deepEqual(rows.map((r) => r.seq), [1, 2]);
});

test('a read while the database is away: retried until it comes back within the bound, then answered', async (t) => {
  const url = await freshDatabase();
  const relay = await pgRelay(t, url);
  const j = new Journal({ store: await openPgStore(relay.url, { onError, retryMs: 60_000, connectTimeoutMs: 1_000 }) });
  await j.load();
  t.teardown(() => j.close());
  await j.append([ev('s', 1), ev('s', 2)]);
  await relay.cut();
  const pending = j.readRange('s', 1);
  setTimeout(() => void relay.restore(), 700);
  t.deepEqual((await pending).map((e) => e.seq), [1, 2]);
});

test('a read while the database stays away: it fails once the bound has passed (no hang), and works again after', async (t) => {
  const url = await freshDatabase();
  const relay = await pgRelay(t, url);
  const j = new Journal({ store: await openPgStore(relay.url, { onError, retryMs: 1_500, connectTimeoutMs: 1_000 }) });
  await j.load();
  t.teardown(() => j.close());
  await j.append([ev('s', 1)]);
  await relay.cut();
  await t.throwsAsync(j.readRange('s', 1));
  await relay.restore();
  t.deepEqual((await j.readRange('s', 1)).map((e) => e.seq), [1]);
});

test('serve with a bad journal URL, a refused login or no answer: exit 1 with one line naming the problem, no hang', async (t) => {
  const home = await tempHome();
  const url = await freshDatabase();
  const held = new Set<net.Socket>();
  const silent = net.createServer((socket) => held.add(socket)); // accepts, never answers
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => {
    silent.close(() => r());
    for (const socket of held) socket.destroy();
  }));
  const silentPort = (silent.address() as net.AddressInfo).port;
  const wrongLogin = Object.assign(new URL(url), { password: 'wrong' }).toString();
  const cases: Array<[string, string[], Record<string, string>, RegExp]> = [
    ['bad scheme', ['serve', '--port', '0', '--journal-url', 'mysql://x@h/db'], {}, /invalid journal URL scheme "mysql:"/],
    ['refused login', ['serve', '--port', '0'], { SVC_CODE_JOURNAL_URL: wrongLogin }, /refused the login/],
    ['no database', ['serve', '--port', '0', '--journal-url', url.replace(/\/[^/]+$/, '/nope')], {}, /does not exist/],
    ['no answer', ['serve', '--port', '0', '--journal-url', `postgres://u:p@127.0.0.1:${silentPort}/db`], {}, /no answer within/],
  ];
  for (const [name, args, env, expected] of cases) {
    const started = Date.now();
    const out = await cli(home, args, env);
    t.log(name, `${Date.now() - started} ms`);
    t.is(out.code, 1, name);
    // A password given in argv is visible in the process list: the daemon warns (a JSON log line) before failing.
    const all = out.stderr.trim().split('\n');
    const warned = all.filter((l) => l.startsWith('{') && /password in --journal-url is visible/.test(l));
    t.is(warned.length, args.some((a) => /:\/\/[^/@]*:[^/@]*@/.test(a)) ? 1 : 0, `${name}: the warning about a password in argv`);
    const lines = all.filter((l) => !warned.includes(l));
    t.is(lines.length, 1, `${name}: ${out.stderr}`);
    t.regex(lines[0], expected, name);
    t.notRegex(lines[0], /wrong/, `${name}: no password in the message`);
  }
});
