import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { runBounded } from './lib/pool.ts';
import { intEnv, progress } from './lib/report.ts';
import { since, summarize } from './lib/stats.ts';
import { prng } from '../fixtures/prng.ts';

const DIRS = 100;
const FILES_PER_DIR = 1000;
const QUERIES = intEnv('BENCH_QUERIES', 120);
const TARGET_P50_MS = 50;
/** Files holding NEEDLE (one per directory): what the grep benchmark looks for. */
export const NEEDLE = 'NEEDLE_7f3a9c';
const WORDS = [
  'alpha', 'beta', 'config', 'server', 'client', 'router', 'parser', 'index', 'utils', 'model', 'view', 'store', 'event', 'queue',
  'cache', 'worker', 'session', 'token', 'search', 'render', 'layout', 'button', 'dialog', 'stream', 'buffer', 'socket', 'schema', 'helper',
];
const EXTS = ['ts', 'ts', 'tsx', 'md', 'json', 'txt'];

function treePaths(): string[] {
  const out: string[] = [];
  for (let d = 0; d < DIRS; d++) {
    const dir = `pkg-${String(d).padStart(2, '0')}-${WORDS[d % WORDS.length]}`;
    for (let f = 0; f < FILES_PER_DIR; f++) {
      out.push(`${dir}/${WORDS[f % WORDS.length]}-${WORDS[(f * 7 + d) % WORDS.length]}-${f}.${EXTS[f % EXTS.length]}`);
    }
  }
  return out;
}

/** The 100,000-file tree under the OS temp dir, generated once and reused (a marker beside it says it is complete). */
export async function ensureTree(): Promise<{ root: string; files: string[] }> {
  const root = path.join(os.tmpdir(), `svc-code-bench-tree-${DIRS * FILES_PER_DIR}`);
  const files = treePaths();
  if (existsSync(`${root}.complete`)) return { root, files };
  progress(`generating ${files.length} files under ${root}`);
  await rm(root, { recursive: true, force: true });
  for (let d = 0; d < DIRS; d++) await mkdir(path.join(root, files[d * FILES_PER_DIR].split('/')[0]), { recursive: true });
  await runBounded(files.length, 64, async (i) => {
    const lines = Array.from({ length: 12 }, (_, l) => `${WORDS[(i + l) % WORDS.length]} line ${l} of file ${i} ${WORDS[(i * 3 + l) % WORDS.length]}`);
    if (i % FILES_PER_DIR === 500) lines.splice(6, 0, `const marker = '${NEEDLE}';`);
    await writeFile(path.join(root, files[i]), `${lines.join('\n')}\n`);
  });
  await writeFile(`${root}.complete`, `${new Date().toISOString()}\n`);
  return { root, files };
}

/** A typing-like mix: basename prefixes, dir/name fragments, skipping subsequences, acronyms, and a few 1-2 letter queries. */
export function queries(files: string[], n: number): string[] {
  const rand = prng(42);
  const pick = () => files[Math.floor(rand() * files.length)];
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const p = pick();
    const base = p.slice(p.lastIndexOf('/') + 1);
    switch (i % 6) {
      case 0: out.push(base.slice(0, 3 + Math.floor(rand() * 6))); break;
      case 1: out.push(`${p.split('/')[0].slice(0, 6)}/${base.slice(0, 5)}`); break;
      case 2: out.push([...base.replace(/\.\w+$/, '')].filter((_, k) => k % 2 === 0).join('')); break;
      case 3: out.push(base.split(/[-.]/).map((w) => w[0]).join('')); break;
      case 4: out.push(base.replace(/\.\w+$/, '')); break;
      default: out.push(base.slice(0, 1 + (i % 2))); break;
    }
  }
  return out;
}

async function main(): Promise<void> {
  runBench('fs-search', 10 * 60_000, async (scope) => {
    const { root, files } = await ensureTree();
    const daemon = await startDaemon(scope, await scope.tempDir('home'));
    const client = new ApiClient(daemon.baseUrl);
    scope.defer(() => client.close());
    const session = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd: root } });
    const url = `/api/v1/sessions/${session.id}/fs:search`;
    let t0 = performance.now();
    await client.ok('POST', url, { query: 'warm' });
    const firstQueryMs = since(t0);
    progress(`index built by the first query in ${firstQueryMs.toFixed(0)} ms; running ${QUERIES} queries`);
    const samples: number[] = [];
    let empty = 0;
    for (const q of queries(files, QUERIES)) {
      t0 = performance.now();
      const data = await client.ok('POST', url, { query: q });
      samples.push(since(t0));
      if (!data.items.length) empty++;
    }
    const overall = summarize(samples);
    return {
      description: 'POST /api/v1/sessions/{id}/fs:search (limit 50) on a 100,000-file tree (100 dirs x 1000 files), one request in flight, against a spawned daemon; the first query builds the file index',
      target: { p50_ms: TARGET_P50_MS },
      files: files.length,
      first_query_ms: Math.round(firstQueryMs),
      queries: samples.length,
      queries_without_hits: empty,
      overall,
      pass: overall.p50 < TARGET_P50_MS,
    };
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
