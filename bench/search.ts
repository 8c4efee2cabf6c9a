// Search bench (issue 15; docs/benchmarks.md "Issue 15", "Session 6 — search", "Session 7 — search memory"):
// 10,000 sessions x 50 messages (BENCH_SESSIONS, BENCH_MESSAGES) written by a daemon run in this process, then a
// daemon from dist/ (`node scripts/build.mjs` first) builds the index from seq 0: RSS at `ready` and 10 s later,
// healthz while it builds, BENCH_REQUESTS (200) queries of each kind, then a restart from the snapshot.
// BENCH_HOME=<dir>: populate <dir> once and reuse it on later runs (populating takes 1.5-2.5 min; its workspace
// roots go to <dir>/../roots); the index is dropped before each run unless BENCH_KEEP_INDEX=1.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { rssMb } from './lib/mcp.ts';
import { intEnv, progress } from './lib/report.ts';
import { summarize } from './lib/stats.ts';
import { defaultServeOptions } from '../src/app/options.ts';
import { startServer } from '../src/app/server.ts';
import { readSettings } from '../src/app/settings.ts';
import { createSession } from '../src/sessions/commands.ts';
import { dropSearchIndexes } from '../src/search/service.ts';
import { prng } from '../fixtures/prng.ts';

const SESSIONS = intEnv('BENCH_SESSIONS', 10_000);
const MESSAGES = intEnv('BENCH_MESSAGES', 50);
const QUERIES = intEnv('BENCH_REQUESTS', 200);
const WORKSPACES = 20;
const VOCABULARY = 5000;
const TARGET = { terms_p50_ms: 20, literal_p50_ms: 100, rss_mb: 300, healthz_building_p99_ms: 20 };

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'pe', 'sa', 'do', 'gu', 'fi', 'ho', 'ju', 'xe', 'be', 'co'];
const rand = prng(42);
const words = Array.from({ length: VOCABULARY }, (_, i) => {
  let w = '';
  let n = i + 7;
  do {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return w;
});
/** Skewed word choice: a few words are common, most are rare (like text). */
const word = () => words[Math.floor(VOCABULARY * rand() ** 2.5)];
const sentence = (n: number) => Array.from({ length: n }, word).join(' ');

/** 10,000 sessions x 50 messages written through the real commands by a daemon run in this process, then stopped. */
async function populate(home: string, roots: string[]): Promise<{ ms: number; documents: number }> {
  const t0 = performance.now();
  const server = await startServer({ home, settings: readSettings(process.env), options: { ...defaultServeOptions(), port: 0 }, log: pino({ level: 'warn' }, pino.destination(2)) });
  const s = server.parts;
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  let documents = 0;
  const one = async (i: number) => {
    const session = await createSession(s, { metadata: { cwd: roots[i % roots.length] }, title: `bench ${sentence(3)}` });
    const events = Array.from({ length: MESSAGES }, (_, j) => ({
      stream: session.id, type: 'message.created' as const,
      payload: {
        agent_id: 'main', turn_id: `turn_${i}_${j >> 1}`,
        message: {
          id: `msg_${i}_${j}`, session_id: session.id, role: (j % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
          content: [{ type: 'text' as const, text: sentence(12 + Math.floor(rand() * 16)) }],
          created_at: new Date(base + (i * MESSAGES + j) * 1000).toISOString(),
        },
      },
    }));
    await s.journal.append(events);
    documents += MESSAGES + 1;
  };
  for (let i = 0; i < SESSIONS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, SESSIONS - i) }, (_, k) => one(i + k)));
    if ((i / 50) % 40 === 0) progress(`  ${i + 50} sessions`);
  }
  await server.close();
  return { ms: Math.round(performance.now() - t0), documents };
}

async function timePosts(client: ApiClient, bodies: () => unknown, n: number): Promise<{ samples: number[]; incomplete: number; hits: number }> {
  for (let i = 0; i < 10; i++) await client.ok('POST', '/api/v1/search', bodies());
  const samples: number[] = [];
  let incomplete = 0;
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const body = bodies();
    const t0 = performance.now();
    const d: any = await client.ok('POST', '/api/v1/search', body);
    samples.push(performance.now() - t0);
    if (d.incomplete) incomplete += 1;
    hits += d.items.length;
  }
  return { samples, incomplete, hits };
}

/** The daemon's "search index ready" log line (how it got the index, the index's sizes, each heap). */
function indexReadyLine(child: ChildProcess): Promise<any> {
  return new Promise((resolve) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.includes('search index ready')) continue;
        child.stderr!.off('data', onData);
        resolve(JSON.parse(line));
        return;
      }
    };
    child.stderr!.on('data', onData);
  });
}

/** A fixed set of queries' answers (compared across a restart). */
async function fixedAnswers(client: ApiClient): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < 20; i++) {
    const q = `${words[60 + i * 7]} ${words[90 + i * 11]}`;
    for (const body of [{ query: q }, { query: q, op: 'OR' }, { query: q, mode: 'literal' }, { query: words[100 + i], sort: 'time_asc', page_size: 50 }]) {
      const d: any = await client.ok('POST', '/api/v1/search', body);
      out.push(d.items.map((x: any) => [x.session_id, x.role, x.time, x.snippet, x.score, x.turn]), d.has_more);
    }
  }
  return out;
}

runBench('search', 15 * 60_000, async (scope) => {
  // BENCH_HOME: a home populated by an earlier run is reused (populate once, then compare daemons).
  const reuse = process.env.BENCH_HOME;
  const home = reuse ?? await scope.tempDir('home');
  const rootsDir = reuse ? path.join(reuse, '..', 'roots') : await scope.tempDir('roots');
  const roots = await Promise.all(Array.from({ length: WORKSPACES }, async (_, i) => {
    const dir = path.join(rootsDir, `ws${i}`);
    await mkdir(dir, { recursive: true });
    return dir;
  }));
  const populated = reuse && existsSync(path.join(reuse, 'db'));
  progress(populated ? `reusing ${home}` : `populating ${SESSIONS} sessions x ${MESSAGES} messages`);
  const pop = populated ? { ms: 0, documents: 0 } : await populate(home, roots);
  progress(`  done in ${pop.ms} ms`);

  const mode = process.env.SVC_CODE_SEARCH_WORKER === '0' ? 'in-process' : 'worker';
  // A reused home keeps the snapshot of the last run: dropped, so the first start builds from seq 0 (BENCH_KEEP_INDEX=1 keeps it).
  if (process.env.BENCH_KEEP_INDEX !== '1') await dropSearchIndexes(home);
  progress(`starting the daemon (index ${mode}); healthz while the index builds`);
  const t0 = performance.now();
  const daemon = await startDaemon(scope, home);
  const readyLine = indexReadyLine(daemon.child);
  const client = new ApiClient(daemon.baseUrl, undefined, 1);
  const prober = new ApiClient(daemon.baseUrl, undefined, 1);
  scope.defer(() => client.close());
  scope.defer(() => prober.close());
  // healthz one at a time for as long as the index builds; the state polled on another connection.
  const healthz: number[] = [];
  let ready = false;
  let buildMs = 0;
  let documents = 0;
  const poll = (async () => {
    while (!ready) {
      const d: any = await prober.ok('POST', '/api/v1/search', { query: 'ka', page_size: 1 });
      if (d.index_state.state === 'ready') {
        ready = true;
        buildMs = performance.now() - t0;
        documents = d.index_state.documents;
      } else await new Promise((r) => setTimeout(r, 100));
    }
  })();
  while (!ready) {
    const h0 = performance.now();
    await client.ok('GET', '/api/v1/healthz');
    healthz.push(performance.now() - h0);
  }
  await poll;
  progress(`  ready after ${Math.round(buildMs)} ms (${documents} documents), ${healthz.length} healthz samples`);
  const rss = await rssMb(daemon.pid);
  // Pages the build touched and freed go back to the OS within seconds: the reading 10 s after ready is the index's cost.
  await new Promise((r) => setTimeout(r, 10_000));
  const rssSettled = await rssMb(daemon.pid);
  progress(`  RSS ${rss} MB at ready, ${rssSettled} MB 10 s later`);

  // Terms: two words of middling frequency (AND), and OR; literal: an exact two-word phrase.
  const mid = () => words[50 + Math.floor(rand() * 400)];
  progress(`timing ${QUERIES} terms queries, ${QUERIES} OR queries, ${QUERIES} literal queries`);
  const terms = await timePosts(client, () => ({ query: `${mid()} ${mid()}` }), QUERIES);
  const termsOr = await timePosts(client, () => ({ query: `${mid()} ${mid()}`, op: 'OR' }), QUERIES);
  const termsTime = await timePosts(client, () => ({ query: `${mid()} ${mid()}`, sort: 'time_desc' }), QUERIES);
  const literal = await timePosts(client, () => ({ query: `${mid()} ${mid()}`, mode: 'literal' }), QUERIES);
  const rssAfter = await rssMb(daemon.pid);
  const sample = await fixedAnswers(client);
  const built = await readyLine;

  // A restart: the index comes from the snapshot the first daemon wrote (after its build and at its stop).
  progress('restarting: the index from its snapshot');
  await daemon.stop();
  const t1 = performance.now();
  const again = await startDaemon(scope, home);
  const againLine = indexReadyLine(again.child);
  const client2 = new ApiClient(again.baseUrl, undefined, 1);
  scope.defer(() => client2.close());
  let restartMs = 0;
  for (;;) {
    const d: any = await client2.ok('POST', '/api/v1/search', { query: 'ka', page_size: 1 });
    if (d.index_state.state === 'ready') {
      restartMs = performance.now() - t1;
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const restored = await againLine;
  await new Promise((r) => setTimeout(r, 10_000));
  const rssRestored = await rssMb(again.pid);
  const sameAnswers = JSON.stringify(await fixedAnswers(client2)) === JSON.stringify(sample);
  progress(`  ready ${Math.round(restartMs)} ms after spawn (${JSON.stringify(restored.from)}), RSS ${rssRestored} MB 10 s later, same answers: ${sameAnswers}`);
  const r = {
    terms_and: { ...summarize(terms.samples), incomplete: terms.incomplete, mean_hits: terms.hits / QUERIES },
    terms_or: { ...summarize(termsOr.samples), incomplete: termsOr.incomplete, mean_hits: termsOr.hits / QUERIES },
    terms_time_desc: { ...summarize(termsTime.samples), incomplete: termsTime.incomplete },
    literal: { ...summarize(literal.samples), incomplete: literal.incomplete, mean_hits: literal.hits / QUERIES },
    healthz_while_building: summarize(healthz),
  };
  return {
    description: 'POST /api/v1/search, one request in flight, keep-alive, against a spawned daemon (dist/) whose index was built from the journal at start',
    target: TARGET,
    index: mode,
    sessions: SESSIONS,
    messages_per_session: MESSAGES,
    documents,
    populate_ms: pop.ms,
    build: { ms_from_spawn_to_ready: Math.round(buildMs), documents_per_s: Math.round(documents / (buildMs / 1000)) },
    rss_mb: { at_ready: rss, ready_plus_10s: rssSettled, after_queries: rssAfter },
    index_at_ready: { server_heap_mb: built.server_heap_mb, ...built.index },
    restart_from_snapshot: { ms_from_spawn_to_ready: Math.round(restartMs), from: restored.from, events_caught_up: restored.events, rss_mb_ready_plus_10s: rssRestored, same_answers: sameAnswers },
    results: r,
    pass: r.terms_and.p50 < TARGET.terms_p50_ms && r.literal.p50 < TARGET.literal_p50_ms && Math.max(rssSettled, rssAfter, rssRestored) < TARGET.rss_mb
      && r.healthz_while_building.p99 < TARGET.healthz_building_p99_ms && sameAnswers,
  };
});
