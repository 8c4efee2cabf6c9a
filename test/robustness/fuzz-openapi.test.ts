import test from 'ava';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startOAuthFixture } from '../../fixtures/oauth/server.ts';
import { tempDir } from '../helpers/fs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { casesFor, type FuzzCase } from './fuzz-cases.ts';
import { prng, type FuzzContext } from './fuzz-values.ts';
import { operations, type Json, type Operation } from './schema-walk.ts';

/**
 * Schema-driven fuzzing of every operation of the daemon's own /openapi.json
 * (docs/robustness.md). Deterministic: seed SVC_FUZZ_SEED (default 1),
 * SVC_FUZZ_CASES cases per operation (default 24; a larger run: SVC_FUZZ_CASES=300).
 */
const SEED = Number(process.env.SVC_FUZZ_SEED ?? 1);
const CASES = Number(process.env.SVC_FUZZ_CASES ?? 24);

// Nothing leaves the machine: the model directory points at a closed loopback port, logins at the
// OAuth fixture (set per run), and the desktop launchers of fs:open / open-in / reveal are no-ops.
process.env.SVC_CODE_MODEL_DIRECTORY_URL = 'http://127.0.0.1:9/directory.json';
process.env.SVC_CODE_OAUTH_POLL_UNIT_MS = '20';
for (const app of ['FILE_MANAGER', 'EDITOR_A', 'EDITOR_B', 'TERMINAL_A', 'TERMINAL_B']) process.env[`SVC_CODE_OPEN_${app}`] = 'true';

async function quietDesktop(): Promise<void> {
  const bin = await tempDir('svc-code-fuzz-bin-');
  await writeFile(path.join(bin, 'xdg-open'), '#!/bin/sh\nexit 0\n');
  await chmod(path.join(bin, 'xdg-open'), 0o755);
  process.env.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
  process.env.DISPLAY = ':99';
}

/** The one operation never fuzzed with a valid request: it stops the daemon under test. */
const SKIP = new Set(['POST /api/v1/shutdown']);
/** Codes of the 50xxx band an operation may answer by the spec (the public model directory is unreachable here). */
const ALLOWED_5XXXX: Record<string, number[]> = { 'GET /api/v1/plugins/marketplace': [50001], 'GET /api/v1/catalog/providers': [50004], 'GET /api/v1/catalog/providers/{catalog_id}': [50004] };

const tally = new Map<string, Set<string>>();
function codes(key: string, label: string, text: string): void {
  let code = 'raw';
  try {
    code = String(JSON.parse(text).code);
  } catch {
    /* a raw answer */
  }
  const set = tally.get(key) ?? new Set<string>();
  if (label === 'baseline' || label === 'every optional field') set.add(`${label}=${code}`);
  else set.add(code);
  tally.set(key, set);
}

interface Finding { op: string; label: string; problem: string }

/** A JSON request that never throws: an answer that is no JSON reads as `{status, body: undefined}`. */
async function call(s: TestServer, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await send(s, { label: '', method, url, headers: body === undefined ? {} : { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  try {
    return { status: r.status, body: JSON.parse(r.text) };
  } catch {
    return { status: r.status, body: undefined };
  }
}

/** The fixture workspace and a session in it, re-made when an operation (DELETE, archive) took them away. */
async function fixtures(s: TestServer, root: string): Promise<{ sessionId: string; workspaceId: string }> {
  const ws = await call(s, 'POST', '/api/v1/workspaces', { root });
  const listed = await call(s, 'GET', '/api/v1/sessions?include_archive=true');
  let sessionId: string | undefined = listed.body?.data?.items?.[0]?.id;
  if (!sessionId) sessionId = (await call(s, 'POST', '/api/v1/sessions', { metadata: { cwd: root } })).body?.data?.id;
  return { sessionId: sessionId ?? 'session_none', workspaceId: ws.body?.data?.id ?? 'wd_none' };
}

function contextFor(o: Operation, ids: { sessionId: string; workspaceId: string }, root: string): FuzzContext {
  const host = o.path.startsWith('/api/v1/fs:') || o.path.endsWith('/add-dir');
  const p = o.path.endsWith('fs:content') ? path.join(root, 'a.txt') : o.path.endsWith('fs:mkdir') && host ? path.join(root, 'made') : host ? root : 'a.txt';
  return { ...ids, root, path: p };
}

function isRaw(op: Json): boolean {
  const ok = op.responses?.['200'] ?? op.responses?.['201'];
  return JSON.stringify(ok?.content?.['application/json']?.schema) === '{}';
}

async function send(s: TestServer, c: FuzzCase): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(s.baseUrl + c.url, { method: c.method, headers: { Authorization: `Bearer ${s.token}`, ...c.headers }, body: typeof c.body === 'string' || c.body === undefined ? c.body : new Uint8Array(c.body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** What is wrong with one answer, if anything. */
function judge(key: string, op: Json, c: FuzzCase, r: { status: number; type: string; text: string }): string | undefined {
  if (r.status >= 500) return `HTTP ${r.status}: ${r.text.slice(0, 200)}`;
  if (r.status === 204) return r.text ? 'a 204 with a body' : undefined;
  let env: { code?: unknown; msg?: unknown; request_id?: unknown; data?: unknown; details?: unknown } | undefined;
  try {
    env = JSON.parse(r.text);
  } catch {
    env = undefined;
  }
  const isEnvelope = env && typeof env === 'object' && typeof env.code === 'number' && typeof env.msg === 'string' && typeof env.request_id === 'string' && 'data' in env;
  if (!isEnvelope) {
    // Raw routes answer bytes on success (200/206/304); /openapi.json and /asyncapi.json are documents.
    return isRaw(op) && [200, 206, 304].includes(r.status) ? undefined : `no envelope (HTTP ${r.status}, ${r.type}): ${r.text.slice(0, 120)}`;
  }
  const code = env!.code as number;
  if (code >= 50000 && !(ALLOWED_5XXXX[key] ?? []).includes(code)) return `code ${code}: ${String(env!.msg).slice(0, 200)}`;
  if (c.mustFail && (code < 40000 || code >= 50000)) return `certainly invalid, answered ${code}: ${JSON.stringify(env!.data).slice(0, 80)}`;
  if (code === 40001 && !Array.isArray(env!.details)) return '40001 without details';
  return undefined;
}

/** Healthy, writable, lists answering: checked after every operation. */
async function health(s: TestServer, n: number): Promise<string | undefined> {
  const h = await call(s, 'GET', '/api/v1/healthz');
  if (h.status !== 200 || h.body?.data?.ok !== true) return `healthz: ${h.status}`;
  const w = await call(s, 'POST', '/api/v1/gui/store/setItem', { key: 'fuzz-health', value: String(n) });
  if (w.body?.code !== 0) return `journaled write: HTTP ${w.status} ${w.body?.code} ${w.body?.msg ?? ''}`;
  for (const url of ['/api/v1/sessions', '/api/v2/sessions', '/api/v1/workspaces', `/api/v1/gui/store/getItem?key=fuzz-health`]) {
    const r = await call(s, 'GET', url);
    if (r.status !== 200 || r.body?.code !== 0) return `list ${url}: HTTP ${r.status} ${r.body?.code ?? '(no envelope)'}`;
  }
  if (({} as Record<string, unknown>).polluted !== undefined) return 'Object.prototype polluted';
  return undefined;
}

test('every operation of /openapi.json: malformed requests never get a 5xx or 50001, always an envelope; the daemon stays healthy and writable', async (t) => {
  t.timeout(10 * 60_000);
  await quietDesktop();
  const oauth = await startOAuthFixture();
  process.env.SVC_CODE_OAUTH_HOST = oauth.url;
  const s = await startTestServer();
  t.teardown(async () => {
    await s.stop();
    await oauth.close();
  });
  const root = await tempDir('svc-code-fuzz-');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await writeFile(path.join(root, 'a.txt'), 'alpha\nbeta\n');
  await chmod(path.join(root, 'a.txt'), 0o644);
  const doc = await (await fetch(`${s.baseUrl}/openapi.json`, { headers: { Authorization: `Bearer ${s.token}` } })).json();
  const rng = prng(SEED);
  const findings: Finding[] = [];
  let sent = 0;
  const ops = operations(doc).filter((o) => !SKIP.has(`${o.method} ${o.path}`));
  for (const [i, o] of ops.entries()) {
    const key = `${o.method} ${o.path}`;
    const ids = await fixtures(s, root);
    for (const c of casesFor(o, contextFor(o, ids, root), rng, CASES)) {
      sent++;
      const answer = await send(s, c);
      if (process.env.SVC_FUZZ_REPORT) codes(key, c.label, answer.text);
      const problem = judge(key, o.op, c, answer);
      if (problem) findings.push({ op: key, label: c.label, problem });
    }
    const sick = await health(s, i);
    if (sick) findings.push({ op: key, label: '(after the operation)', problem: sick });
  }
  if (process.env.SVC_FUZZ_REPORT) for (const [k, v] of tally) t.log(`${k}: ${[...v].join(' ')}`);
  t.log(`seed ${SEED}: ${sent} requests over ${ops.length} operations (${CASES} per operation); ${findings.length} findings`);
  for (const f of findings.slice(0, process.env.SVC_FUZZ_REPORT ? undefined : 40)) t.log(`${f.op} [${f.label}] ${f.problem}`);
  t.deepEqual(findings, []);
});
