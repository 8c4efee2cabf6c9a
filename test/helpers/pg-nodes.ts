import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freshDatabase } from './pg.ts';
import { newSession, startTestServer, tempHome, type TestServer } from './server.ts';
import { until } from './wait.ts';
import type { OwnerLookup } from '../../src/nodes/types.ts';

/** What one of the two nodes gets besides the common options: its own config.toml, its own owner lookup. */
export interface NodeOptions {
  config?: string;
  owners?: OwnerLookup;
}

/**
 * Two daemons (nodes) `node_a` and `node_b` on one fresh PostgreSQL journal, each with its own home (and `config` in
 * its config.toml when given; `nodes` per node, over it), stopped when the test ends (docs/scale-out.md). Callers
 * import test/helpers/pg.ts's server through this.
 */
export async function twoNodes(
  t: { teardown(fn: () => unknown): void },
  opts: { env?: NodeJS.ProcessEnv; config?: string; nodes?: Partial<Record<'node_a' | 'node_b', NodeOptions>> } = {},
): Promise<{ url: string; a: TestServer; b: TestServer }> {
  const url = await freshDatabase();
  const start = async (node: 'node_a' | 'node_b') => {
    const home = await tempHome();
    const own = opts.nodes?.[node] ?? {};
    const config = own.config ?? opts.config;
    if (config !== undefined) await writeFile(path.join(home, 'config.toml'), config);
    const s = await startTestServer({ home, options: { journalUrl: url }, env: { SVC_CODE_NODE_ID: node, ...opts.env }, owners: own.owners });
    t.teardown(() => s.stop());
    return s;
  };
  const a = await start('node_a');
  const b = await start('node_b');
  return { url, a, b };
}

/** The ids of a list, in the order the node lists them. */
export const listed = async (s: TestServer, what: 'sessions' | 'workspaces'): Promise<string[]> =>
  ((await s.get(`/api/v1/${what}?limit=200`)).data.items as { id: string }[]).map((x) => x.id);

export const ids = async (s: TestServer, what: 'sessions' | 'workspaces'): Promise<string[]> => (await listed(s, what)).sort();

/**
 * A marker committed on `writer` after the events under test, and seen followed on `reader`: the follower reads in
 * commit order, so whatever it would deliver of the earlier events (a duplicate included) has been delivered by then.
 */
export async function followedPast(writer: TestServer, reader: TestServer): Promise<void> {
  const marker = await newSession(writer);
  await until(() => reader.journal.hasStream(marker), 30_000);
}
