import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';

interface SearchHit { session_id: string; session_title: string; role: string; snippet: string; time: number; turn?: string }
interface SearchPage { items: SearchHit[]; has_more: boolean; page_token?: string }

const PAGE = 20;

/**
 * Cross-session search (POST /api/v1/search, terms mode, 20 hits a page, "More results" follows the page
 * token). A hit opens its session and scrolls to its turn (loading older turns until it is there).
 * Escape clears the results.
 */
export function SearchBox(props: { open: (sid: string) => void; onError: (e: unknown) => void; inputRef?: RefObject<HTMLInputElement | null> }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [token, setToken] = useState<string | null>(null);
  const run = async (more = false) => {
    if (!query.trim()) return void setHits(null);
    try {
      const r = await api<SearchPage>('POST', '/api/v1/search', { query: query.trim(), page_size: PAGE, ...(more && token ? { page_token: token } : {}) });
      setHits(more ? [...(hits ?? []), ...r.items] : r.items);
      setToken(r.has_more && r.page_token ? r.page_token : null);
    } catch (e) {
      props.onError(e);
    }
  };
  const close = () => { setHits(null); setToken(null); };
  return (
    <div class="search" onKeyDown={(e) => { if (e.key === 'Escape' && hits) { e.preventDefault(); close(); props.inputRef?.current?.focus(); } }}>
      <form role="search" onSubmit={(e) => { e.preventDefault(); void run(); }}>
        <input ref={props.inputRef} aria-label="Search sessions" placeholder="Search sessions (Ctrl+K)" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      </form>
      {hits && (
        <ul class="hits" aria-label="Search results">
          {hits.length === 0 && <li class="none">No matches</li>}
          {hits.map((h, i) => (
            <li key={`${h.session_id}-${i}`}>
              <a href={`/s/${h.session_id}`} data-turn={h.turn} onClick={(e) => { e.preventDefault(); close(); props.open(h.session_id); if (h.turn) jumpToTurn(h.turn); }}>
                <span class="s-title">{h.session_title || 'Untitled session'}</span>
                <span class="snippet"><span class="role">{h.role}</span> {h.snippet}</span>
              </a>
            </li>
          ))}
          {token && <li><button class="ghost more" onClick={() => void run(true)}>More results</button></li>}
        </ul>
      )}
    </div>
  );
}

/**
 * Waits for the turn's article in the chat (search names the engine's turn id, `turn_…`, which the
 * transcript keeps as `turn_id`), clicking "Load older turns" while it is not there; then scrolls to it
 * and marks it.
 */
export function jumpToTurn(turnId: string, deadline = Date.now() + 10_000): void {
  const sel = `article[data-turn-id="${CSS.escape(turnId)}"]`;
  let clickedAt = -1;
  const tick = () => {
    const el = document.querySelector(sel);
    if (el) {
      el.scrollIntoView({ block: 'center' });
      el.classList.add('hit');
      setTimeout(() => el.classList.remove('hit'), 2500);
      return;
    }
    if (Date.now() > deadline) return;
    const older = document.querySelector('button.older');
    // One click per page: the next only once the previous page's turns are in.
    const turns = document.querySelectorAll('article.turn').length;
    if (older instanceof HTMLButtonElement && turns > 0 && turns !== clickedAt) {
      clickedAt = turns;
      older.click();
    }
    setTimeout(tick, 100);
  };
  setTimeout(tick, 50);
}
