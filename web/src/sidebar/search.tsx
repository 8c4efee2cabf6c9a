import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';

interface SearchHit { session_id: string; session_title: string; role: string; snippet: string; time: number; turn?: string; agent_id?: string }
interface SearchPage { items: SearchHit[]; has_more: boolean; page_token?: string }

const PAGE = 20;

/** The hit's turn when the main transcript holds it: a subagent's message (its own turn ids) opens the session at its newest turns. */
const mainTurnOf = (h: SearchHit): string | undefined => ((h.agent_id ?? 'main') === 'main' ? h.turn : undefined);

/**
 * Cross-session search (POST /api/v1/search, terms mode, 20 hits a page, "More results" follows the page
 * token). A hit opens its session at its turn (`open(sid, turn)`: the chat's `jumpTo` pages older turns in
 * until it holds the turn, then scrolls the windowed log to it).
 * Escape clears the results.
 */
export function SearchBox(props: { open: (sid: string, turn?: string) => void; onError: (e: unknown) => void; inputRef?: RefObject<HTMLInputElement | null> }) {
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
              <a href={`/s/${h.session_id}`} data-turn={h.turn} onClick={(e) => { e.preventDefault(); close(); props.open(h.session_id, mainTurnOf(h)); }}>
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
