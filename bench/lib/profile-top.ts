/**
 * Prints the heaviest functions of a `.cpuprofile` (from `node --cpu-prof`), by self and
 * by inclusive time: `node --import tsx bench/lib/profile-top.ts <file> [rows] [from_ms] [to_ms]`
 * (from/to: a window in ms from the profile's start, e.g. one phase of a benchmark).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [file, rowsArg, fromArg, toArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-top.ts <file.cpuprofile> [rows]\n');
  process.exit(2);
}
const rows = Number(rowsArg ?? 30);
const fromUs = Number(fromArg ?? 0) * 1000;
const toUs = toArg === undefined ? Infinity : Number(toArg) * 1000;
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let at = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  if (at < fromUs || at > toUs) return;
  total += dt;
  self.set(label(byId.get(id)!), (self.get(label(byId.get(id)!)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
  }
});
const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, rows)
  .map(([l, t]) => `${(t / 1000).toFixed(0).padStart(7)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${l}`).join('\n');
process.stdout.write(`profile ${(at / 1000).toFixed(0)} ms, window ${(total / 1000).toFixed(0)} ms\n-- self\n${top(self)}\n-- inclusive\n${top(inclusive)}\n`);
