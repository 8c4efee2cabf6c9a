import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench, type Scope } from './lib/lifecycle.ts';
import { runBounded } from './lib/pool.ts';
import { intEnv, progress } from './lib/report.ts';
import { summarize } from './lib/stats.ts';

const REQUESTS = intEnv('BENCH_REQUESTS', 200);
const WARMUP = 20;
/** The big tree: 10 x 100 directories x 100 files (100,000 files); BENCH_BIG_TREE=0 skips it. */
const BIG_TREE = process.env.BENCH_BIG_TREE !== '0';

/** `a` x `b` directories, each leaf holding `files` small files; a .gitignore at the top so the ignore rules do work. */
async function makeTree(root: string, a: number, b: number, files: number): Promise<number> {
  await writeFile(path.join(root, '.gitignore'), '*.log\nnode_modules/\n');
  const leaves: string[] = [];
  for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) leaves.push(path.join(root, `dir-${i}`, `sub-${j}`));
  await runBounded(leaves.length, 16, async (n) => {
    await mkdir(leaves[n], { recursive: true });
    for (let k = 0; k < files; k++) await writeFile(path.join(leaves[n], `file-${k}.ts`), `export const v${k} = ${k};\n`);
  });
  return leaves.length * files;
}

/** Times sequential POSTs (one in flight); fails on any non-success. */
async function timePosts(client: ApiClient, url: string, body: unknown): Promise<{ samples: number[]; returned: number; truncated: boolean }> {
  let last: any;
  for (let i = 0; i < WARMUP; i++) last = await client.ok('POST', url, body);
  const samples: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    await client.ok('POST', url, body);
    samples.push(performance.now() - t0);
  }
  const nested = Object.values(last.children_by_path ?? {}).reduce((n: number, l: any) => n + l.length, 0);
  return { samples, returned: last.items.length + nested, truncated: last.truncated };
}

async function benchTree(scope: Scope, client: ApiClient, label: string, shape: [number, number, number]) {
  const root = await scope.tempDir(`tree-${label}`);
  const t0 = performance.now();
  const files = await makeTree(root, ...shape);
  progress(`${label}: ${files} files generated in ${Math.round(performance.now() - t0)} ms`);
  const session = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd: root } });
  const url = `/api/v1/sessions/${session.id}/fs:list`;
  const cases: Record<string, unknown> = {
    depth3_limit200: { depth: 3 },
    depth3_limit1000: { depth: 3, limit: 1000 },
    depth3_limit1000_mtime: { depth: 3, limit: 1000, sort: 'mtime_desc' },
    depth1_leaf_dir: { path: 'dir-0/sub-0' },
  };
  const results: Record<string, unknown> = {};
  for (const [name, body] of Object.entries(cases)) {
    progress(`${label} ${name}: ${REQUESTS} sequential requests`);
    const r = await timePosts(client, url, body);
    results[name] = { body, entries_returned: r.returned, truncated: r.truncated, ...summarize(r.samples) };
  }
  return { shape: `${shape[0]} x ${shape[1]} dirs x ${shape[2]} files`, files, results };
}

runBench('fs-list', 10 * 60_000, async (scope) => {
  const home = await scope.tempDir('home');
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl, undefined, 1);
  scope.defer(() => client.close());
  const trees: Record<string, unknown> = {
    tree_10k: await benchTree(scope, client, '10k', [10, 10, 100]),
  };
  if (BIG_TREE) trees.tree_100k = await benchTree(scope, client, '100k', [10, 100, 100]);
  return {
    description: 'POST fs:list (follow_gitignore on, type_first unless stated), one request in flight, keep-alive, against a spawned daemon; no target set by the issue',
    requests_per_case: REQUESTS,
    trees,
  };
});
