import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../test/helpers/pg-server.ts';
import { startDaemon, type Daemon } from './daemon.ts';
import { engineConfig } from './engine.ts';
import type { Scope } from './lifecycle.ts';

/**
 * Which journal the daemons of a bench run on, and how many of them (issue 28: LevelDB vs PostgreSQL, one node and
 * two). From the command line (`--journal leveldb|pg`, `--nodes 1|2`) or the environment (BENCH_JOURNAL, BENCH_NODES);
 * LevelDB by default. PostgreSQL: SVC_BENCH_PG_URL (a server whose `postgres` database may create databases), else an
 * embedded PostgreSQL (test/helpers/pg-server.ts) with its default durability; a fresh database per run.
 */
export interface JournalChoice {
  journal: 'leveldb' | 'pg';
  nodes: number;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function journalChoice(): JournalChoice {
  const journal = arg('journal') ?? process.env.BENCH_JOURNAL ?? 'leveldb';
  const nodes = Number(arg('nodes') ?? process.env.BENCH_NODES ?? 1);
  if (journal !== 'leveldb' && journal !== 'pg') throw new Error(`--journal must be leveldb or pg, not ${journal}`);
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error(`--nodes must be a positive integer, not ${nodes}`);
  // Two nodes share a journal only through PostgreSQL: a LevelDB home belongs to one process.
  if (journal === 'leveldb' && nodes > 1) throw new Error('two nodes need --journal pg');
  return { journal, nodes };
}

export const journalLabel = (c: JournalChoice) => `${c.journal === 'pg' ? 'PostgreSQL' : 'LevelDB'}, ${c.nodes} node${c.nodes > 1 ? 's' : ''}`;

/** A database of its own on the server behind `adminUrl`, so every run starts from an empty journal. */
async function freshDatabase(adminUrl: string, prefix: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `bench_${prefix.replace(/\W/g, '_')}_${process.pid}_${Date.now()}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
}

/** The journal URL for the run's daemons (PostgreSQL only), its server stopped with the scope. */
async function journalUrl(scope: Scope, prefix: string): Promise<string> {
  const given = process.env.SVC_BENCH_PG_URL;
  const server = given ? undefined : await startEmbeddedPostgres([]);
  if (server) scope.defer(() => server.stop());
  return freshDatabase(given ?? server!.url('postgres'), prefix);
}

/**
 * Starts `choice.nodes` daemons from dist/, each with a home of its own whose config aims at the fixture LLM; on
 * PostgreSQL they share one fresh database, with node ids node_a, node_b, ... and the same server token (BENCH_TOKEN).
 */
export async function startNodes(scope: Scope, prefix: string, llmUrl: string, choice: JournalChoice, extra: Parameters<typeof startDaemon>[3] = {}): Promise<Daemon[]> {
  const url = choice.journal === 'pg' ? await journalUrl(scope, prefix) : undefined;
  const daemons: Daemon[] = [];
  for (let i = 0; i < choice.nodes; i++) {
    const home = await scope.tempDir(`${prefix}-${i}`);
    await writeFile(path.join(home, 'config.toml'), engineConfig(llmUrl));
    const env: Record<string, string> = url ? { SVC_CODE_JOURNAL_URL: url, SVC_CODE_NODE_ID: `node_${String.fromCharCode(97 + i)}` } : {};
    daemons.push(await startDaemon(scope, home, env, extra));
  }
  return daemons;
}
