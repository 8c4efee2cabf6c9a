/** Terms mode (part-b "Search"): ASCII words, lowercased, plus n-grams (bigrams) of CJK runs. */

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+/g;
const WORD = /[a-z0-9_]+/g;
/** Longer words are cut: a term is a key in the index. */
const MAX_TERM = 64;

/** Every distinct term of `text`, in first-seen order. */
export function terms(text: string): string[] {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(WORD) ?? []) out.add(w.length > MAX_TERM ? w.slice(0, MAX_TERM) : w);
  for (const run of text.match(CJK) ?? []) {
    const chars = [...run];
    if (chars.length === 1) out.add(chars[0]);
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1]);
  }
  return [...out];
}

/**
 * What a literal needle says about the terms of a document that contains it: an inner word is a whole term
 * (`exact`); a word at the needle's start may be the end of a longer word (`suffix`), at its end the start of
 * one (`prefix`), both (`infix`); a CJK run's bigrams are terms, a lone CJK character is in one. Literal mode
 * uses them to pick the documents it reads (the match itself is checked on the text).
 */
export type Fragment = { kind: 'exact' | 'prefix' | 'suffix' | 'infix'; text: string };

export function literalFragments(needle: string): Fragment[] {
  const out: Fragment[] = [];
  const lower = needle.toLowerCase();
  for (const m of lower.matchAll(WORD)) {
    const w = m[0];
    const atStart = m.index === 0;
    const atEnd = m.index + w.length === lower.length;
    if (!atStart && !atEnd) out.push({ kind: 'exact', text: w.length > MAX_TERM ? w.slice(0, MAX_TERM) : w });
    else if (w.length <= MAX_TERM) out.push({ kind: atStart && atEnd ? 'infix' : atStart ? 'suffix' : 'prefix', text: w });
  }
  for (const m of needle.matchAll(CJK)) {
    const chars = [...m[0]];
    if (chars.length === 1) out.push({ kind: 'infix', text: chars[0] });
    for (let i = 0; i + 1 < chars.length; i++) out.push({ kind: 'exact', text: chars[i] + chars[i + 1] });
  }
  return out;
}

/** Whether index term `term` can be the word a fragment stands for (a term cut at MAX_TERM may end with anything). */
export function fragmentMatches(f: Fragment, term: string): boolean {
  switch (f.kind) {
    case 'exact': return term === f.text;
    case 'prefix': return term.startsWith(f.text);
    case 'suffix': return term.endsWith(f.text) || term.length === MAX_TERM;
    case 'infix': return term.includes(f.text) || term.length === MAX_TERM;
  }
}
