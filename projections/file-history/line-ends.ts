// The two halves every line diff here shares (the file history's counts, projections/file-history/reducer.ts, and
// the web UI's diff view, web/src/chat/diff.ts): a text's lines, and the lines both sides have in common at their
// head and tail, so only the middle is compared.

/** A text's lines; a final newline ends the last line rather than starting an empty one. */
export function textLines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/** How many lines `a` and `b` share at their start (`head`) and, after those, at their end (`tail`). */
export function commonEnds(a: readonly string[], b: readonly string[]): { head: number; tail: number } {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { head, tail };
}
