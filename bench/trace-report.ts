import { readFileSync } from 'node:fs';

/**
 * Summarizes a SVC_CODE_TRACE_PROMPT file (one JSON line per turn, see src/engine/trace.ts):
 * the median ms of each mark after `http.in`, over lines [from, to). Usage:
 * node --import tsx bench/trace-report.ts <file> [from] [to]
 */
const [file, from = '0', to] = process.argv.slice(2);
const lines = readFileSync(file!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { marks: Array<[string, number, number?]> });
const picked = lines.slice(Number(from), to === undefined ? undefined : Number(to));
const at = new Map<string, number[]>();
const idle = new Map<string, number[]>();
for (const { marks } of picked) {
  const first = marks.find(([l]) => l === 'http.in') ?? marks[0]!;
  for (const [label, t, i] of marks) {
    if (!at.has(label)) at.set(label, []);
    at.get(label)!.push(t - first[1]);
    if (i !== undefined && first[2] !== undefined) {
      if (!idle.has(label)) idle.set(label, []);
      idle.get(label)!.push(i - first[2]);
    }
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const rows = [...at].map(([label, xs]) => [label, median(xs), idle.has(label) ? median(idle.get(label)!) : NaN] as const).sort((a, b) => a[1] - b[1]);
console.log(`${picked.length} turns: mark, median ms after http.in, median ms the event loop was idle since http.in`);
for (const [label, ms, i] of rows) console.log(`${label.padEnd(22)} ${ms.toFixed(2).padStart(8)} ${i.toFixed(2).padStart(7)}`);
