// What a session is called in the list and its bar, and how long ago it moved.
// A session's title is empty until one is set or generated; until then it is called by its first prompt,
// which does not change as more prompts are sent (the list's `last_prompt` does: it is used only for a
// session first seen here with prompts already sent, and kept from then on). The prompts are remembered in
// localStorage (the newest KEEP), so a reload or another session opened keeps the name.

const KEY = 'svc-code.first-prompts';
const KEEP = 300;
/** A title longer than this is cut (the full text is in the element's title). */
const MAX = 120;

type Entry = { text: string; sure: boolean };

/** The last parse, kept while the stored text is the same (a list renders a name per row). */
let parsed: { raw: string; all: Record<string, Entry> } = { raw: '', all: {} };

/** The stored names: read-only (rememberFirstPrompt writes a copy). */
function load(): Readonly<Record<string, Entry>> {
  const raw = localStorage.getItem(KEY) ?? '{}';
  if (raw === parsed.raw) return parsed.all;
  try {
    const v = JSON.parse(raw) as unknown;
    parsed = { raw, all: v && typeof v === 'object' ? v as Record<string, Entry> : {} };
  } catch {
    parsed = { raw, all: {} };
  }
  return parsed.all;
}

/**
 * Remembers `text` as a session's first prompt. `sure`: it is the first prompt (the first turn of the
 * transcript, or the prompt that started an empty session); otherwise only the first text seen is kept.
 * True when the stored name changed.
 */
export function rememberFirstPrompt(sid: string, text: string | null | undefined, sure: boolean): boolean {
  const t = text?.trim().replace(/\s+/g, ' ');
  if (!t) return false;
  const all = { ...load() };
  const cur = all[sid];
  if (cur && (cur.sure || !sure)) return false;
  delete all[sid];
  all[sid] = { text: t.slice(0, MAX), sure };
  const ids = Object.keys(all);
  for (const id of ids.slice(0, Math.max(0, ids.length - KEEP))) delete all[id];
  localStorage.setItem(KEY, JSON.stringify(all));
  return true;
}

/** The name to show: the title, else the first prompt, else the last prompt (remembered as the first from now on). */
export function sessionName(row: { id: string; meta: { title?: string | null; last_prompt?: string | null } } | undefined): string {
  if (!row) return 'New session';
  if (row.meta.title) return row.meta.title;
  const first = load()[row.id]?.text;
  if (first) return first;
  if (row.meta.last_prompt) {
    rememberFirstPrompt(row.id, row.meta.last_prompt, false);
    return row.meta.last_prompt.slice(0, MAX);
  }
  return 'New session';
}

/** "now", "5m", "3h", "2d", else the date: how long ago `ms` (epoch ms) was. */
export function ago(ms: number | undefined, now = Date.now()): string {
  if (!ms || !Number.isFinite(ms)) return '';
  const s = Math.max(0, (now - ms) / 1000);
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  if (s < 7 * 86_400) return `${Math.floor(s / 86_400)}d`;
  return new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric', ...(s > 300 * 86_400 ? { year: 'numeric' } : {}) });
}

/** One formatter for every time shown (making one per call is the slow part of toLocaleString). */
const STAMP = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** A time for a tooltip or a turn's corner: "Tue, Mar 4, 14:05". */
export function when(iso: string | number | undefined): string {
  if (iso === undefined) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : STAMP.format(d);
}
