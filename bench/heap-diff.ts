import { readFile } from 'node:fs/promises';

// Usage: node --import tsx bench/heap-diff.ts <a.heapsnapshot> [b.heapsnapshot]
// One snapshot: objects grouped by constructor (count, self and retained MB, as the Summary view of
// the DevTools memory panel computes them: an object's retained size counts once per group, not again
// for objects of the same group it dominates) and the largest single holders with their dominator
// chain. Two snapshots: the same groups as the difference b - a, largest growth first.
// Not a benchmark (prints text, not JSON): the tool behind the heap figures of docs/benchmarks.md.

interface Graph {
  count: number;
  /** The name of an edge from `from` to `to` (a property name or an index), for the tree view. */
  edgeName(from: number, to: number): string;
  names: string[];
  types: string[];
  self: Float64Array;
  retained: Float64Array;
  idom: Int32Array;
  group: string[];
}

async function load(file: string): Promise<Graph> {
  const snap = JSON.parse(await readFile(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const meta = snap.snapshot.meta;
  const nw = meta.node_fields.length;
  const ew = meta.edge_fields.length;
  const nType = meta.node_fields.indexOf('type');
  const nName = meta.node_fields.indexOf('name');
  const nSize = meta.node_fields.indexOf('self_size');
  const nEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eTo = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const shortcut = edgeTypes.indexOf('shortcut');
  const { nodes, edges, strings } = snap;
  const count = nodes.length / nw;
  const firstEdge = new Int32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * nw + nEdges]! * ew;
  }
  firstEdge[count] = edges.length;
  const succ = (i: number, f: (j: number) => void) => {
    for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += ew) {
      const t = edges[e + eType];
      if (t === weak || t === shortcut) continue;
      f(edges[e + eTo]! / nw);
    }
  };
  // Post-order from the root (node 0), iteratively.
  const order = new Int32Array(count).fill(-1);
  const post: number[] = [];
  const stack: number[] = [0];
  const cursor = new Int32Array(count);
  const visited = new Uint8Array(count);
  visited[0] = 1;
  for (let i = 0; i < count; i++) cursor[i] = firstEdge[i]!;
  while (stack.length) {
    const n = stack[stack.length - 1]!;
    let pushed = false;
    while (cursor[n]! < firstEdge[n + 1]!) {
      const e = cursor[n]!;
      cursor[n] = e + ew;
      const t = edges[e + eType];
      if (t === weak || t === shortcut) continue;
      const j = edges[e + eTo]! / nw;
      if (visited[j]) continue;
      visited[j] = 1;
      stack.push(j);
      pushed = true;
      break;
    }
    if (!pushed) {
      order[n] = post.length;
      post.push(n);
      stack.pop();
    }
  }
  // Predecessors (reachable ones only).
  const predCount = new Int32Array(count + 1);
  for (const n of post) succ(n, (j) => predCount[j]++);
  const predStart = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) predStart[i + 1] = predStart[i]! + predCount[i]!;
  const preds = new Int32Array(predStart[count]!);
  const fill = predStart.slice();
  for (const n of post) succ(n, (j) => (preds[fill[j]++] = n));
  // Cooper-Harvey-Kennedy on post-order numbers.
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = idom[a]!;
      while (order[b]! < order[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = post.length - 2; k >= 0; k--) {
      const n = post[k]!;
      let d = -1;
      for (let p = predStart[n]!; p < predStart[n + 1]!; p++) {
        const q = preds[p]!;
        if (idom[q] === -1) continue;
        d = d === -1 ? q : intersect(q, d);
      }
      if (d !== -1 && idom[n] !== d) {
        idom[n] = d;
        changed = true;
      }
    }
  }
  const self = new Float64Array(count);
  const names: string[] = new Array(count);
  const types: string[] = new Array(count);
  const group: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    self[i] = nodes[i * nw + nSize]!;
    types[i] = nodeTypes[nodes[i * nw + nType]!]!;
    names[i] = strings[nodes[i * nw + nName]!]!;
    const t = types[i];
    group[i] = t === 'object' || t === 'native' ? names[i]! : t === 'closure' ? `(closure) ${names[i]}` : `(${t})`;
  }
  const retained = self.slice();
  for (const n of post) if (n !== 0 && idom[n]! >= 0) retained[idom[n]!] += retained[n]!;
  const eName = meta.edge_fields.indexOf('name_or_index');
  const element = edgeTypes.indexOf('element');
  const hidden = edgeTypes.indexOf('hidden');
  const edgeName = (from: number, to: number) => {
    for (let e = firstEdge[from]!; e < firstEdge[from + 1]!; e += ew) {
      if (edges[e + eTo]! / nw !== to) continue;
      const t = edges[e + eType];
      return t === element || t === hidden ? `[${edges[e + eName]}]` : String(strings[edges[e + eName]!]);
    }
    return '?';
  };
  return { count, edgeName, names, types, self, retained, idom, group };
}

interface Row { count: number; self: number; retained: number }

function groups(g: Graph): Map<string, Row> {
  // Dominator tree children, then a walk that counts a group's retained size only at its outermost objects.
  const kids = new Map<number, number[]>();
  for (let i = 1; i < g.count; i++) {
    const d = g.idom[i]!;
    if (d < 0) continue;
    let k = kids.get(d);
    if (!k) kids.set(d, (k = []));
    k.push(i);
  }
  const out = new Map<string, Row>();
  const open = new Map<string, number>();
  const stack: Array<[number, boolean]> = [[0, false]];
  while (stack.length) {
    const [n, leaving] = stack.pop()!;
    const name = g.group[n]!;
    if (leaving) {
      open.set(name, open.get(name)! - 1);
      continue;
    }
    let r = out.get(name);
    if (!r) out.set(name, (r = { count: 0, self: 0, retained: 0 }));
    r.count++;
    r.self += g.self[n]!;
    if (!open.get(name)) r.retained += g.retained[n]!;
    open.set(name, (open.get(name) ?? 0) + 1);
    stack.push([n, true]);
    for (const c of kids.get(n) ?? []) stack.push([c, false]);
  }
  return out;
}

const mb = (b: number) => (b / 2 ** 20).toFixed(2).padStart(8);

function chain(g: Graph, n: number): string {
  const parts: string[] = [];
  for (let d = n; d > 0 && parts.length < 8; d = g.idom[d]!) parts.push(g.group[d]!.slice(0, 40));
  return parts.join(' < ');
}

const args = process.argv.slice(2);
const treeAt = args.indexOf('--tree');
const tree = treeAt >= 0 ? args.splice(treeAt, 3).slice(1) : undefined;
const [a, b] = args;
if (!a) throw new Error('usage: heap-diff.ts <a.heapsnapshot> [b.heapsnapshot] [--tree <group> <depth>]');
const ga = await load(a);
const ra = groups(ga);
if (tree) {
  // The dominator subtree of the largest object of one group, with edge names, children above 0.5% of it.
  const [name, depthText] = tree;
  let top = -1;
  for (let i = 0; i < ga.count; i++) if (ga.group[i] === name && (top < 0 || ga.retained[i]! > ga.retained[top]!)) top = i;
  if (top < 0) throw new Error(`no ${name}`);
  const kids = new Map<number, number[]>();
  for (let i = 1; i < ga.count; i++) {
    let k = kids.get(ga.idom[i]!);
    if (!k) kids.set(ga.idom[i]!, (k = []));
    k.push(i);
  }
  const floor = ga.retained[top]! * 0.005;
  const walk = (n: number, depth: number, label: string) => {
    const k = (kids.get(n) ?? []).sort((x, y) => ga.retained[y]! - ga.retained[x]!);
    const small = k.filter((c) => ga.retained[c]! < floor);
    console.log(`${mb(ga.retained[n]!)} ${'  '.repeat(depth)}${label} ${ga.group[n]!.slice(0, 50)}${small.length ? ` (+${small.length} small: ${mb(small.reduce((s, c) => s + ga.retained[c]!, 0)).trim()} MB)` : ''}`);
    if (depth >= Number(depthText ?? 4)) return;
    for (const c of k) if (ga.retained[c]! >= floor) walk(c, depth + 1, ga.edgeName(n, c));
  };
  walk(top, 0, '');
} else if (!b) {
  console.log(`total ${mb(ga.retained[0]!)} MB, ${ga.count} nodes`);
  console.log('\nby group (retained MB, self MB, count):');
  for (const [name, r] of [...ra].sort((x, y) => y[1].retained - x[1].retained).slice(0, 40)) console.log(`${mb(r.retained)} ${mb(r.self)} ${String(r.count).padStart(8)}  ${name.slice(0, 80)}`);
  console.log('\nlargest holders (retained MB, dominator chain):');
  const idx = Array.from({ length: ga.count }, (_, i) => i).filter((i) => ga.types[i] !== 'synthetic').sort((x, y) => ga.retained[y]! - ga.retained[x]!);
  let shown = 0;
  for (const i of idx) {
    if (ga.retained[i]! < 2 ** 18 || shown >= 40) break;
    console.log(`${mb(ga.retained[i]!)}  ${chain(ga, i)}`);
    shown++;
  }
} else {
  const gb = await load(b);
  const rb = groups(gb);
  console.log(`total ${mb(ga.retained[0]!)} -> ${mb(gb.retained[0]!)} MB`);
  // Self sizes summed by holder: the chain of the two outermost non-synthetic dominators of each object.
  const holders = (g: Graph) => {
    const out = new Map<string, number>();
    const memo = new Map<number, string>();
    const key = (n: number): string => {
      const hit = memo.get(n);
      if (hit !== undefined) return hit;
      const chainOf: number[] = [];
      for (let d = n; d > 0 && g.types[d] !== 'synthetic'; d = g.idom[d]!) chainOf.push(d);
      const k = chainOf.slice(-2).reverse().map((d) => g.group[d]!.slice(0, 40)).join(' > ') || '(root)';
      memo.set(n, k);
      return k;
    };
    for (let i = 0; i < g.count; i++) out.set(key(i), (out.get(key(i)) ?? 0) + g.self[i]!);
    return out;
  };
  const ha = holders(ga);
  const hb = holders(gb);
  console.log('\ngrowth by outermost holders (self MB below them, b - a):');
  const hk = [...new Set([...ha.keys(), ...hb.keys()])].map((k) => [k, (hb.get(k) ?? 0) - (ha.get(k) ?? 0)] as const);
  for (const [k, d] of hk.sort((x, y) => y[1] - x[1]).slice(0, 25)) console.log(`${mb(d)}  ${k}`);
  console.log('\ngrowth by group (retained MB, self MB, count; b - a):');
  const names = new Set([...ra.keys(), ...rb.keys()]);
  const zero = { count: 0, self: 0, retained: 0 };
  const rows = [...names].map((n) => {
    const x = ra.get(n) ?? zero;
    const y = rb.get(n) ?? zero;
    return { n, retained: y.retained - x.retained, self: y.self - x.self, count: y.count - x.count };
  });
  for (const r of rows.sort((x, y) => y.self - x.self).slice(0, 40)) console.log(`${mb(r.retained)} ${mb(r.self)} ${String(r.count).padStart(8)}  ${r.n.slice(0, 80)}`);
}
