import { startDaemon } from './daemon.ts';
import { ApiClient } from './http.ts';
import type { Scope } from './lifecycle.ts';
import { runBounded } from './pool.ts';
import { progress } from './report.ts';

export interface PopulateOptions {
  count: number;
  /** Workspace roots; sessions are spread round-robin over them. */
  dirs: string[];
  concurrency?: number;
  /** Archive every n-th session of each workspace (10 -> ~10% archived); 0 = none. */
  archiveEvery?: number;
}

export interface Populated {
  ids: string[];
  workspaceIds: string[];
  archived: number;
  ms: number;
}

/** Creates sessions through the real API (POST /api/v1/sessions, bounded concurrency), then archives a share through the v2 batch route. */
export async function populate(client: ApiClient, opts: PopulateOptions): Promise<Populated> {
  const t0 = performance.now();
  const { count, dirs, concurrency = 16, archiveEvery = 0 } = opts;
  const ids: string[] = new Array(count);
  const workspaceIds = new Set<string>();
  const create = async (i: number) => {
    const s = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd: dirs[i % dirs.length] }, title: `bench session ${i}` });
    ids[i] = s.id;
    workspaceIds.add(s.workspace_id);
  };
  // The first session of each root registers its workspace; do those one at a time.
  const first = Math.min(dirs.length, count);
  for (let i = 0; i < first; i++) await create(i);
  await runBounded(count - first, concurrency, async (i) => {
    await create(first + i);
    if ((first + i + 1) % 2_000 === 0) progress(`  created ${first + i + 1} sessions`);
  });
  // Every n-th session of each workspace (not every n-th overall, which would land in a few workspaces only).
  const archived = (i: number) => Math.floor(i / dirs.length) % archiveEvery === archiveEvery - 1;
  const toArchive = archiveEvery > 0 ? ids.filter((_, i) => archived(i)) : [];
  for (let i = 0; i < toArchive.length; i += 1_000) {
    const res = await client.ok('POST', '/api/v2/sessions:archive', { ids: toArchive.slice(i, i + 1_000) });
    if (res.failed) throw new Error(`archiving failed for ${res.failed} sessions`);
  }
  return { ids, workspaceIds: [...workspaceIds], archived: toArchive.length, ms: Math.round(performance.now() - t0) };
}

/** A temp home holding `count` sessions over `workspaces` roots, written by a daemon that is then stopped. */
export async function populatedHome(scope: Scope, count: number, workspaces = 20, archiveEvery = 10) {
  const home = await scope.tempDir('home');
  const dirs = await scope.workspaceDirs(await scope.tempDir('roots'), workspaces);
  progress(`populating ${count} sessions in ${home}`);
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl);
  try {
    const result = await populate(client, { count, dirs, archiveEvery });
    progress(`  populated in ${result.ms} ms`);
    return { home, dirs, ...result };
  } finally {
    client.close();
    await daemon.stop();
  }
}
