// A line diff for the chat's tool blocks (Edit's old_string -> new_string, Write's content):
// common head and tail lines kept as context, the middle by LCS when small, else removed-then-added.

import { commonEnds, textLines } from '../../../projections/file-history/line-ends.ts';

export type DiffLine = { kind: ' ' | '-' | '+'; text: string };

const LCS_CELLS = 250_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = textLines(before);
  const b = textLines(after);
  const { head, tail } = commonEnds(a, b);
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ kind: ' ', text }));
  if (midA.length * midB.length <= LCS_CELLS) out.push(...lcs(midA, midB));
  else out.push(...midA.map((text) => ({ kind: '-' as const, text })), ...midB.map((text) => ({ kind: '+' as const, text })));
  out.push(...a.slice(a.length - tail).map((text) => ({ kind: ' ' as const, text })));
  return out;
}

function lcs(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  // dp[i][j]: LCS length of a[i..] and b[j..], one flat array.
  const dp = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i * (m + 1) + j] = a[i] === b[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: ' ', text: a[i]! });
      i++;
      j++;
    } else if (dp[(i + 1) * (m + 1) + j]! >= dp[i * (m + 1) + j + 1]!) out.push({ kind: '-', text: a[i++]! });
    else out.push({ kind: '+', text: b[j++]! });
  }
  while (i < n) out.push({ kind: '-', text: a[i++]! });
  while (j < m) out.push({ kind: '+', text: b[j++]! });
  return out;
}

/** A unified diff text (fs:diff, a display block) as lines. */
export function parseUnified(text: string): DiffLine[] {
  return text.replace(/\n$/, '').split('\n').map((line) => {
    const c = line[0];
    if (c === '+' && !line.startsWith('+++')) return { kind: '+', text: line.slice(1) };
    if (c === '-' && !line.startsWith('---')) return { kind: '-', text: line.slice(1) };
    return { kind: ' ', text: line.startsWith(' ') ? line.slice(1) : line };
  });
}
