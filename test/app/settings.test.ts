import test from 'ava';
import { Writable } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { readSettings, withSettings } from '../../src/app/settings.ts';
import { startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

test('readSettings: the defaults with nothing set', (t) => {
  const s = readSettings({});
  t.is(s.home, path.join(os.homedir(), '.svc-code'));
  t.is(s.serverToken, undefined);
  t.true(s.journalFsync);
  t.is(s.reconcileIntervalMs, 30_000);
  t.like(s.engine, { retryBaseMs: 500, modelIdleTimeoutMs: 300_000, runtimeIdleMs: 30 * 60_000 });
  t.like(s.engine.mcpReconnect, { baseMs: 1000, maxMs: 60_000, attempts: 10 });
  t.is(s.engine.webFetch.timeoutMs, 30_000);
  t.deepEqual(s.uploads, { maxBytes: 512 * 1024 * 1024, sweepIntervalMs: 60_000 });
  t.deepEqual(s.ws, { maxBufferedBytes: 8 * 1024 * 1024, coalesceMs: 16 });
  t.deepEqual(s.live, { turns: 40, retrimMs: 30_000 });
  t.is(s.grepTimeoutMs, 10_000);
  t.deepEqual(s.access, { allowedHosts: [], allowedOrigins: [] });
  t.deepEqual(s.warnings, []);
});

test('readSettings: each variable in its place, lists split, 0 where 0 means off', (t) => {
  const s = readSettings({
    SVC_CODE_HOME: '/tmp/h', SVC_CODE_SERVER_TOKEN: 'tok', SVC_CODE_JOURNAL_FSYNC: '0', SVC_CODE_RUNTIME_IDLE_MS: '0',
    SVC_CODE_WS_COALESCE_MS: '0', SVC_CODE_SEARCH_DEADLINE_MS: '0.5', SVC_MCP_RECONNECT_BASE_MS: '100',
    SVC_CODE_ALLOWED_HOSTS: ' a.example, .b.example ,', SVC_CODE_OAUTH_HOST: ' https://o.example ', SVC_CODE_MARKETPLACE_URL: 'https://m.example/c.json',
    SVC_LOOP_MAX_STEPS_PER_TURN: '7',
  });
  t.is(s.home, '/tmp/h');
  t.is(s.serverToken, 'tok');
  t.false(s.journalFsync);
  t.is(s.engine.runtimeIdleMs, 0);
  t.is(s.ws.coalesceMs, 0);
  t.is(s.search.budgets.deadlineMs, 0.5);
  t.like(s.engine.mcpReconnect, { baseMs: 100, maxMs: 6000 });
  t.deepEqual(s.access.allowedHosts, ['a.example', '.b.example']);
  t.is(s.oauth.host, 'https://o.example');
  t.is(s.config.overrides.marketplace_url, 'https://m.example/c.json');
  t.is(s.config.overrides.domains.loop_control?.max_steps_per_turn, 7);
  t.deepEqual(s.warnings, []);
});

test('readSettings: a value not taken keeps the default and is named in a warning', (t) => {
  const s = readSettings({ SVC_CODE_WS_COALESCE_MS: 'fast', SVC_CODE_LIVE_TURNS: '0', SVC_CODE_RETRY_BASE_MS: '-1', SVC_CODE_GREP_TIMEOUT_MS: ' ' });
  t.is(s.ws.coalesceMs, 16);
  t.is(s.live.turns, 40);
  t.is(s.engine.retryBaseMs, 500);
  t.is(s.grepTimeoutMs, 10_000, 'blank is unset: no warning');
  t.deepEqual(s.warnings, [
    'SVC_CODE_RETRY_BASE_MS="-1" is not a whole number >= 0; using the default 500',
    'SVC_CODE_WS_COALESCE_MS="fast" is not a whole number >= 0; using the default 16',
    'SVC_CODE_LIVE_TURNS="0" is not a whole number >= 1; using the default 40',
  ]);
});

test('settings are frozen; withSettings gives a changed frozen copy', (t) => {
  const s = readSettings({});
  t.throws(() => { (s as { grepTimeoutMs: number }).grepTimeoutMs = 1; });
  t.throws(() => { (s.engine as { retryBaseMs: number }).retryBaseMs = 1; });
  const replay = withSettings(s, (d) => void (d.engine.retryBaseMs = 0));
  t.is(replay.engine.retryBaseMs, 0);
  t.is(s.engine.retryBaseMs, 500);
  t.true(Object.isFrozen(replay.engine));
});

test('a server started with a malformed variable logs it once with the default used, and runs', async (t) => {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  const s = await startTestServer({ env: { SVC_CODE_WS_MAX_BUFFERED_BYTES: 'lots' }, log: pino({ level: 'warn' }, sink) });
  t.teardown(() => s.stop());
  await until(() => lines.some((l) => l.msg.includes('SVC_CODE_WS_MAX_BUFFERED_BYTES')), 10_000);
  t.deepEqual(lines.filter((l) => l.msg.includes('SVC_CODE_WS_')).map((l) => [l.level, l.msg]), [
    [40, 'SVC_CODE_WS_MAX_BUFFERED_BYTES="lots" is not a whole number >= 1; using the default 8388608'],
  ]);
  t.is((await s.get('/api/v1/healthz')).code, 0);
});

test('node identity: SVC_CODE_NODE_ID is taken (trimmed), unset leaves it to the start', (t) => {
  t.is(readSettings({ SVC_CODE_NODE_ID: ' node_a ' }).nodeId, 'node_a');
  t.is(readSettings({}).nodeId, undefined);
  t.is(readSettings({ SVC_CODE_NODE_ID: '  ' }).nodeId, undefined);
});

test('nodes: SVC_CODE_NODE_URL is taken (trimmed), SVC_CODE_LEASE_TTL_MS defaults to 10 s and refuses what is no whole number', (t) => {
  t.is(readSettings({ SVC_CODE_NODE_URL: ' http://node-a.internal:7001 ' }).nodeUrl, 'http://node-a.internal:7001');
  t.is(readSettings({}).nodeUrl, undefined);
  t.is(readSettings({}).leaseTtlMs, 10_000);
  t.is(readSettings({ SVC_CODE_LEASE_TTL_MS: '3000' }).leaseTtlMs, 3_000);
  const bad = readSettings({ SVC_CODE_LEASE_TTL_MS: '0' });
  t.is(bad.leaseTtlMs, 10_000);
  t.true(bad.warnings.some((w) => w.includes('SVC_CODE_LEASE_TTL_MS')));
});

test('node identity: a server logs its node id at start, the one set or a fresh node_<ULID>', async (t) => {
  const started = async (env: NodeJS.ProcessEnv) => {
    const lines: Array<{ msg: string; nodeId?: string }> = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
    const s = await startTestServer({ env, log: pino({ level: 'info' }, sink) });
    t.teardown(() => s.stop());
    await until(() => lines.some((l) => l.nodeId !== undefined), 10_000);
    return lines.filter((l) => l.nodeId !== undefined).map((l) => l.nodeId);
  };
  t.deepEqual(await started({ SVC_CODE_NODE_ID: 'node_first' }), ['node_first']);
  const [generated, ...rest] = await started({});
  t.regex(generated ?? '', /^node_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.deepEqual(rest, []);
});

test('readSettings: SVC_CODE_LOG_LEVEL empty is unset, a bad name keeps the default and warns once', (t) => {
  t.is(readSettings({ SVC_CODE_LOG_LEVEL: '' }).logLevel, undefined);
  t.is(readSettings({ SVC_CODE_LOG_LEVEL: '  ' }).logLevel, undefined);
  t.deepEqual(readSettings({ SVC_CODE_LOG_LEVEL: '' }).warnings, []);
  t.is(readSettings({ SVC_CODE_LOG_LEVEL: ' debug ' }).logLevel, 'debug');
  const bad = readSettings({ SVC_CODE_LOG_LEVEL: 'loud' });
  t.is(bad.logLevel, undefined);
  t.is(bad.warnings.length, 1);
  t.regex(bad.warnings[0]!, /SVC_CODE_LOG_LEVEL="loud".*default/);
});
