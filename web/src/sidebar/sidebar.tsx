import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import { GROUP_PAGE, type useSessionList } from './sessions.ts';
import { SearchBox } from './search.tsx';
import '../panels/panels.css';

const BADGE: Record<string, string> = { running: 'busy', approval: 'needs approval', question: 'question', failed: 'failed' };

/**
 * The sidebar: title bar (the `--web-title`, connection dot, theme, settings), search, add a workspace
 * (a path, or "Browse…" for the folder picker), then each workspace with its sessions (the first
 * GROUP_PAGE, "Show more" pages on), their status badges (busy / approval / question / failed).
 */
export function Sidebar(props: {
  title: string; connected: boolean; theme: string; toggleTheme: () => void; openSettings: () => void;
  list: ReturnType<typeof useSessionList>; active: string | null; open: (sid: string, turn?: string) => void;
  addWorkspace: (root: string) => void; newSession: (workspaceId: string) => void; pickFolder: () => void;
  showArchived: boolean; setShowArchived: (on: boolean) => void; searchRef: RefObject<HTMLInputElement | null>;
  onError: (e: unknown) => void;
}) {
  const { list } = props;
  return (
    <aside class="sidebar" aria-label="Workspaces and sessions">
      <header class="brand">
        <span class="title">{props.title}</span>
        <span class={`conn ${props.connected ? 'on' : 'off'}`} title={props.connected ? 'connected' : 'disconnected'} role="status" aria-label={props.connected ? 'connected' : 'disconnected'} />
        <button class="ghost" onClick={props.toggleTheme} aria-label="Toggle theme" title="Light / dark (Ctrl+Shift+L)">{props.theme === 'dark' ? '☀' : '☾'}</button>
        <button class="ghost" onClick={props.openSettings} aria-label="Settings" title="Settings (Ctrl+,)">⚙</button>
      </header>
      <SearchBox open={props.open} onError={props.onError} inputRef={props.searchRef} />
      <AddWorkspace onAdd={props.addWorkspace} onBrowse={props.pickFolder} />
      {list.workspaces.map((w) => {
        const rows = list.rows[w.id] ?? [];
        const total = list.totals[w.id] ?? rows.length;
        return (
          <section class="workspace" key={w.id} aria-label={`Workspace ${w.name}`}>
            <div class="ws-head">
              <span class="ws-name" title={w.root}>{w.name}</span>
              <button class="small" aria-label={`New session in ${w.name}`} onClick={() => props.newSession(w.id)}>+ New</button>
            </div>
            <ul>
              {rows.map((s) => (
                <li key={s.id}>
                  <a href={`/s/${s.id}`} class={s.id === props.active ? 'active' : ''} aria-current={s.id === props.active ? 'page' : undefined} onClick={(e) => { e.preventDefault(); props.open(s.id); }}>
                    <span class="s-title">{s.meta.title || s.meta.last_prompt || 'New session'}</span>
                    {s.meta.archived && <span class="badge archived">archived</span>}
                    {s.activity.status !== 'idle' && <span class={`badge ${s.activity.status}`} title={BADGE[s.activity.status] ?? s.activity.status}>{s.activity.status}</span>}
                  </a>
                </li>
              ))}
            </ul>
            {total > rows.length && <MoreButton n={Math.min(GROUP_PAGE * 2, total - rows.length)} onMore={() => list.more(w.id)} onError={props.onError} />}
          </section>
        );
      })}
      <label class="toggle"><input type="checkbox" checked={props.showArchived} onChange={(e) => props.setShowArchived(e.currentTarget.checked)} /> Show archived</label>
    </aside>
  );
}

function MoreButton(props: { n: number; onMore: () => Promise<void>; onError: (e: unknown) => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <button class="ghost small more" disabled={busy} onClick={() => { setBusy(true); props.onMore().catch(props.onError).finally(() => setBusy(false)); }}>
      Show {props.n} more
    </button>
  );
}

function AddWorkspace(props: { onAdd: (root: string) => void; onBrowse: () => void }) {
  const [root, setRoot] = useState('');
  return (
    <form class="add-ws" onSubmit={(e) => { e.preventDefault(); if (root.trim()) { props.onAdd(root.trim()); setRoot(''); } }}>
      <input aria-label="Workspace folder" placeholder="/path/to/project" value={root} onInput={(e) => setRoot(e.currentTarget.value)} />
      <button type="submit">Add</button>
      <button type="button" class="ghost" onClick={props.onBrowse} title="New session in a chosen folder (Ctrl+Shift+O)">Browse…</button>
    </form>
  );
}
