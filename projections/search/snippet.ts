/** Characters of context a hit's snippet shows before and after the first match. */
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 140;

/** The text around the first match, whole when short; `…` marks what was cut. Literal needles match case and all. */
export function snippet(text: string, needles: string[], literal: boolean): string {
  const hay = literal ? text : text.toLowerCase();
  let at = -1;
  for (const n of needles) {
    const i = hay.indexOf(n);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) at = 0;
  const from = Math.max(0, at - SNIPPET_BEFORE);
  const to = Math.min(text.length, at + SNIPPET_AFTER);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}
