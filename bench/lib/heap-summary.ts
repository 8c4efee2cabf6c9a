import { readFile } from 'node:fs/promises';

/** One row of a heap snapshot's summary: objects of one constructor (or one V8 node type). */
export interface HeapRow {
  name: string;
  count: number;
  self_mb: number;
}

export interface HeapSummary {
  total_mb: number;
  nodes: number;
  /** Self size by V8 node type (object, string, code, array, hidden, closure, ...). */
  by_type: HeapRow[];
  /** Self size of `object` nodes by constructor name, largest first. */
  top_constructors: HeapRow[];
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

function rows(map: Map<string, { count: number; size: number }>, limit: number): HeapRow[] {
  return [...map]
    .sort((a, b) => b[1].size - a[1].size)
    .slice(0, limit)
    .map(([name, r]) => ({ name, count: r.count, self_mb: mb(r.size) }));
}

/**
 * Sums the self sizes of a `.heapsnapshot` (what `--heapsnapshot-signal` writes) by node type and by
 * constructor, as the Summary view of the DevTools memory panel does (self sizes, not retained).
 */
export async function summarizeHeapSnapshot(file: string, limit = 25): Promise<HeapSummary> {
  const snap = JSON.parse(await readFile(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const byType = new Map<string, { count: number; size: number }>();
  const byCtor = new Map<string, { count: number; size: number }>();
  const add = (map: typeof byType, key: string, size: number) => {
    const r = map.get(key);
    if (r) {
      r.count++;
      r.size += size;
    } else map.set(key, { count: 1, size });
  };
  let total = 0;
  const { nodes, strings } = snap;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const size = nodes[i + sizeAt];
    total += size;
    add(byType, type, size);
    if (type === 'object') add(byCtor, strings[nodes[i + nameAt]], size);
  }
  return { total_mb: mb(total), nodes: nodes.length / width, by_type: rows(byType, limit), top_constructors: rows(byCtor, limit) };
}
