import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Icon } from '../icons.tsx';

interface SearchHit { session_id: string; session_title: string; role: string; snippet: string; time: number; turn?: string; agent_id?: string }
interface SearchPage { items: SearchHit[]; has_more: boolean; page_token?: string; index_state?: { state: string; failed?: boolean } }

const PAGE = 20;
/** Typing pauses this long before the search runs (Enter runs it at once). */
const TYPING_MS = 250;
/** While the index is still being built (a start, a rebuild), the shown search is asked again this often. */
const BUILDING_MS = 1000;

/** `text` with every occurrence of the query's words marked. */
export function highlight(text: string, query: string): ComponentChildren {
  const words = query.trim().split(/\s+/).filter((w) => w.length > 0).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!words.length) return text;
  const parts = text.split(new RegExp(`(${words.join('|')})`, 'gi'));
  return parts.map((p, i) => (i % 2 === 1 ? <mark key={i}>{p}</mark> : p));
}

/** The hit's turn when the main transcript holds it: a subagent's message (its own turn ids) opens the session at its newest turns. */
const mainTurnOf = (h: SearchHit): string | undefined => ((h.agent_id ?? 'main') === 'main' ? h.turn : undefined);

/**
 * Cross-session search (POST /api/v1/search, terms mode, 20 hits a page, "More results" follows the page
 * token), as the query is typed (or at once on Enter), the query's words marked in the snippets. A hit opens
 * its session at its turn (`open(sid, turn)`: the chat's `jumpTo` pages older turns in until it holds the
 * turn, then scrolls the windowed log to it).
 * Escape clears the results.
 */
export function SearchBox(props: { open: (sid: string, turn?: string) => void; onError: (e: unknown) => void; inputRef?: RefObject<HTMLInputElement | null> }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [token, setToken] = useState<string | null>(null);
  /** The query the hits are for (the marks), and the newest search asked: an older answer arriving late is dropped. */
  const [shown, setShown] = useState('');
  /** The answer came from an index still being built: hits may be missing, the search is asked again. */
  const [partial, setPartial] = useState(false);
  /** The index build failed: not polled; Retry asks again (the daemon builds the index again on a search after a failure). */
  const [failed, setFailed] = useState(false);
  const seq = useRef(0);
  const timer = useRef<number | undefined>(undefined);
  const run = async (q: string, more = false) => {
    clearTimeout(timer.current);
    const n = ++seq.current;
    if (!q.trim()) return void setHits(null);
    try {
      const r = await api<SearchPage>('POST', '/api/v1/search', { query: q.trim(), page_size: PAGE, ...(more && token ? { page_token: token } : {}) });
      if (n !== seq.current) return;
      setHits(more ? [...(hits ?? []), ...r.items] : r.items);
      setToken(r.has_more && r.page_token ? r.page_token : null);
      setShown(q.trim());
      const broken = r.index_state?.failed === true;
      const building = r.index_state?.state === 'building' && !broken;
      setFailed(broken);
      // Only the first page is asked again; a "More results" page that is the last one leaves nothing to come.
      setPartial(building && (!more || r.has_more));
      if (building && !more) timer.current = window.setTimeout(() => void run(q), BUILDING_MS);
    } catch (e) {
      if (n === seq.current) props.onError(e);
    }
  };
  useEffect(() => () => clearTimeout(timer.current), []);
  const typed = (q: string) => {
    setQuery(q);
    clearTimeout(timer.current);
    if (!q.trim()) {
      return close();
    }
    timer.current = window.setTimeout(() => void run(q), TYPING_MS);
  };
  /** Hides the results; an answer or a re-ask still on its way is dropped (it would open them again). */
  const close = () => { seq.current++; clearTimeout(timer.current); setHits(null); setToken(null); setPartial(false); setFailed(false); };
  return (
    <div class="search" onKeyDown={(e) => { if (e.key === 'Escape' && hits) { e.preventDefault(); close(); props.inputRef?.current?.focus(); } }}>
      <form role="search" onSubmit={(e) => { e.preventDefault(); void run(e.currentTarget.querySelector('input')?.value ?? query); }}>
        <Icon name="search" />
        <input ref={props.inputRef} aria-label="Search sessions" placeholder="Search sessions" title="Search every session (Ctrl+K)" value={query} onInput={(e) => typed(e.currentTarget.value)} />
      </form>
      {hits && (
        <ul class="hits" aria-label="Search results">
          {partial && <li class="none" role="status">Still indexing: more results may come</li>}
          {failed && (
            <li class="none" role="alert">
              The search index could not be built: results may be missing. <button class="ghost small" onClick={() => void run(shown)}>Retry</button>
            </li>
          )}
          {hits.length === 0 && !partial && !failed && <li class="none">No matches</li>}
          {hits.map((h, i) => (
            <li key={`${h.session_id}-${i}`}>
              <a href={`/s/${h.session_id}`} data-turn={h.turn} onClick={(e) => { e.preventDefault(); close(); props.open(h.session_id, mainTurnOf(h)); }}>
                <span class="s-title">{h.session_title || 'Untitled session'}</span>
                <span class="snippet"><span class="role">{h.role}</span> {highlight(h.snippet, shown)}</span>
              </a>
            </li>
          ))}
          {token && <li><button class="ghost small more" onClick={() => void run(shown, true)}>More results</button></li>}
        </ul>
      )}
    </div>
  );
}
