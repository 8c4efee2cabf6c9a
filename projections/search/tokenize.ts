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
