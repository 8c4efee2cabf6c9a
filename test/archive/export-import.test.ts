import test from 'ava';
import { strToU8, zipSync } from 'fflate';
import { createHash } from 'node:crypto';
import { CANARY, entries, exportRaw, exportZip, importZip, recordSession } from '../helpers/archive.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';
import { engineConfig } from '../helpers/llm.ts';
import { until } from '../helpers/wait.ts';
import { BACKENDS, serveOptions } from '../helpers/journal.ts';
import { LevelStore } from '../../journal/level-store.ts';
import { PgStore } from '../../journal/pg/pg-store.ts';

/** Reads that must answer the same on the origin daemon and after an import elsewhere. */
const READS = (id: string) => [
  `/api/v1/sessions/${id}`,
  `/api/v1/sessions/${id}/messages?page_size=100`,
  `/api/v1/sessions/${id}/transcript?agent_id=main&page_size=100`,
  `/api/v1/sessions/${id}/transcript/user-messages`,
  `/api/v1/sessions/${id}/transcript/ops?agent_id=main&since_seq=0`,
  `/api/v1/sessions/${id}/snapshot`,
  `/api/v1/sessions/${id}/status`,
  `/api/v1/sessions/${id}/children`,
];

/**
 * What may differ between two daemons, and why:
 * - `seq` of GET /transcript and the op batches of /transcript/ops exist only for live sessions (the origin's runtime
 *   is loaded, the importer's is not); `complete` says so;
 * Everything else (session object, usage, model binding, messages, turns, interactions) comes from the same events and
 * the same model configuration, so it must be equal.
 */
const IGNORED = new Set(['seq', 'batches', 'latest_seq', 'complete']);

function diff(a: unknown, b: unknown, at: string, out: string[]): void {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    out.push(`${at}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
    return;
  }
  if (Array.isArray(a)) {
    if (a.length !== (b as unknown[]).length) out.push(`${at}: length ${a.length} != ${(b as unknown[]).length}`);
    a.forEach((x, i) => diff(x, (b as unknown[])[i], `${at}[${i}]`, out));
    return;
  }
  if (a && typeof a === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b as object)]);
    for (const k of keys) if (!IGNORED.has(k)) diff((a as any)[k], (b as any)[k], `${at}.${k}`, out);
    return;
  }
  if (a !== b) out.push(`${at}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

async function compareReads(from: TestServer, fromId: string, to: TestServer, toId: string): Promise<string[]> {
  const out: string[] = [];
  const fromReads = READS(fromId);
  const toReads = READS(toId);
  for (let i = 0; i < fromReads.length; i++) {
    const a = await from.get(fromReads[i]);
    const b = await to.get(toReads[i]);
    const renamed = JSON.parse(JSON.stringify(b).split(toId).join(fromId));
    if (a.code !== 0 || b.code !== 0) out.push(`${fromReads[i]}: codes ${a.code} / ${b.code}`);
    diff(a.data, renamed.data, fromReads[i], out);
  }
  return out;
}

test('export: a zip attachment with the journal, reads, settings without secrets, log lines, web_log and a manifest', async (t) => {
  const r = await recordSession(t);
  const res = await exportRaw(r.s, r.sid, { web_log: 'client says hi', desktop: true });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/zip');
  t.is(res.headers.get('content-disposition'), `attachment; filename="svc-session-${r.sid}.zip"`);
  t.is(res.headers.get('etag'), null);
  t.is(res.headers.get('accept-ranges'), null);
  const zip = new Uint8Array(await res.arrayBuffer());
  const files = entries(zip);
  const manifest = JSON.parse(files['manifest.json']);
  t.like(manifest, { format: 'svc-code.session-export', format_version: 1, session_id: r.sid, desktop_log: 'not_available' });
  t.deepEqual(Object.keys(files).sort(), ['daemon.log', `journal/${r.sid}.jsonl`, 'manifest.json', 'messages.json', 'session.json', 'settings.json', 'transcript.json', 'web_log.txt']);
  for (const f of manifest.files) t.is(createHash('sha256').update(files[f.path]).digest('hex'), f.sha256, f.path);

  const journal = files[`journal/${r.sid}.jsonl`].trim().split('\n').map((l) => JSON.parse(l));
  const head = r.s.journal.head(r.sid)!;
  t.is(journal.length, head.seq);
  t.deepEqual(journal.map((e) => e.seq), Array.from({ length: head.seq }, (_, i) => i + 1));
  t.true(journal.every((e) => e.epoch === head.epoch));
  t.true(journal.some((e) => e.type === 'tool.result'));
  t.is(manifest.counts.events, head.seq);

  const messages = (await r.s.get(`/api/v1/sessions/${r.sid}/messages?page_size=100`)).data;
  t.deepEqual(JSON.parse(files['messages.json']).items, messages.items);
  t.is(manifest.counts.messages, messages.items.length);
  const transcript = (await r.s.get(`/api/v1/sessions/${r.sid}/transcript?agent_id=main&page_size=100`)).data;
  const { seq: _seq, ...servedTranscript } = transcript;
  t.deepEqual(JSON.parse(files['transcript.json']).agents.main, servedTranscript);
  t.is(files['web_log.txt'], 'client says hi');

  // Daemon log lines of this session only (the engine logs every turn's end).
  const logLines = files['daemon.log'].trim().split('\n').map((l) => JSON.parse(l));
  t.true(logLines.filter((l) => l.msg === 'turn ended').length >= 2);
  t.true(logLines.every((l) => l.session_id === r.sid || l.sessionId === r.sid || l.session === r.sid));

  // The canary API key appears nowhere in the archive, neither compressed nor inflated; the provider is still described.
  t.false(Buffer.from(zip).includes(CANARY));
  for (const [name, text] of Object.entries(files)) t.false(text.includes(CANARY), name);
  const settings = JSON.parse(files['settings.json']);
  t.is(settings.config.providers.canary.type, 'chat_compat');
  t.false('api_key' in settings.config.providers.canary);
});

test('export: unknown session is an envelope 40401; web_log over 256 KB is 40001', async (t) => {
  const r = await recordSession(t);
  const missing = await exportRaw(r.s, 'session_01J0000000000000000000000X');
  t.is((await missing.json()).code, 40401);
  const big = await exportRaw(r.s, r.sid, { web_log: 'x'.repeat(256 * 1024 + 1) });
  const body = await big.json();
  t.is(body.code, 40001);
  t.is(body.details[0].field, 'web_log');
  // 256 KB of multi-byte text counts bytes, not characters.
  t.is((await (await exportRaw(r.s, r.sid, { web_log: 'é'.repeat(128 * 1024 + 1) })).json()).code, 40001);
  t.is((await exportRaw(r.s, r.sid, { web_log: 'x'.repeat(256 * 1024) })).status, 200);
});

// Export and import over HTTP on both journal backends: the origin and the importer on the home's LevelDB, or each on
// a fresh PostgreSQL database.
for (const backend of BACKENDS) {
test(`[${backend}] import into another home: same id, and every read answers field by field as on the origin`, async (t) => {
  const r = await recordSession(t, await serveOptions(backend));
  const zip = await exportZip(r.s, r.sid);
  // The same model configuration (live model, context limit), but not the canary provider.
  const other = await serverFor(t, { config: engineConfig(r.llm.url), options: await serveOptions(backend) });
  const res = await importZip(other, zip);
  t.is(res.status, 201, JSON.stringify(res.body));
  t.like(res.body.data, { original_id: r.sid, id_changed: false });
  t.is(res.body.data.session.id, r.sid);
  t.deepEqual(await compareReads(r.s, r.sid, other, r.sid), []);
  const kind = backend === 'postgres' ? PgStore : LevelStore;
  t.true(r.s.journal.store instanceof kind && other.journal.store instanceof kind, `both daemons journal on ${backend}`);
  // Search finds the same hits (title times included: they come from the session's events).
  await other.search.whenReady();
  const hits = async (s: TestServer) => (await s.post('/api/v1/search', { query: 'zebra giraffe', op: 'OR' })).data.items;
  const expected = await hits(r.s);
  t.true(expected.length >= 2);
  t.deepEqual(await until(async () => {
    const got = await hits(other);
    return got.length === expected.length ? got : undefined;
  }, 5000, 'imported session indexed'), expected);
  // The imported session is listed, and its workspace registered.
  const list = (await other.get('/api/v1/sessions')).data;
  t.true(list.items.some((s: { id: string }) => s.id === r.sid));
  t.is((await other.get('/api/v1/workspaces')).data.items?.length ?? (await other.get('/api/v1/workspaces')).data.length, 1);
  // After a restart (projections loaded from disk, or rebuilt) the reads still match.
  const again = await other.restart({ rebuildProjections: true });
  t.teardown(() => again.stop());
  t.deepEqual(await compareReads(r.s, r.sid, again, r.sid), []);
});
}

test('import into the same home: the id is taken, so the session gets a new one and reads match but for the id', async (t) => {
  const r = await recordSession(t);
  const zip = await exportZip(r.s, r.sid);
  const res = await importZip(r.s, zip);
  t.is(res.status, 201, JSON.stringify(res.body));
  const copy = res.body.data.session.id;
  t.not(copy, r.sid);
  t.true(res.body.data.id_changed);
  t.deepEqual(await compareReads(r.s, r.sid, r.s, copy), []);
  const journal = await r.s.eventsOf(copy);
  t.false(JSON.stringify(journal).includes(r.sid));
});

test('import refuses what is not a valid export with 40001', async (t) => {
  const r = await recordSession(t);
  const zip = await exportZip(r.s, r.sid);
  const other = await serverFor(t);
  t.is((await importZip(other, strToU8('not a zip'))).body.code, 40001);
  t.is((await importZip(other, zipSync({ 'a.txt': strToU8('x') }))).body.code, 40001);
  // A file changed after export: its checksum no longer matches.
  const files = Object.fromEntries(Object.entries(entries(zip)).map(([k, v]) => [k, strToU8(k.startsWith('journal/') ? v.replace('zebra', 'zebrA') : v)]));
  const tampered = await importZip(other, zipSync(files));
  t.is(tampered.body.code, 40001);
  t.regex(tampered.body.details[0].message, /checksum/);
  const missingFile = await fetch(`${other.baseUrl}/api/v1/sessions:import`, { method: 'POST', headers: { Authorization: `Bearer ${other.token}` }, body: new FormData() });
  t.is((await missingFile.json()).code, 40001);
  t.is((await other.get('/api/v1/sessions')).data.items.length, 0);
});
