import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Icon } from '../icons.tsx';
import { GROUP_PAGE, type useSessionList } from './sessions.ts';
import { SearchBox } from './search.tsx';
import { ago, sessionName, when } from './titles.ts';
import '../panels/panels.css';

/** A status badge's words (the class keeps the status: running, approval, question, failed). */
const BADGE: Record<string, string> = { running: 'working', approval: 'approval', question: 'question', failed: 'failed' };
const TITLE: Record<string, string> = { running: 'working', approval: 'waits for your approval', question: 'has a question for you', failed: 'the last turn failed' };

/**
 * The sidebar: title bar (the `--web-title`, connection dot, theme, settings), search, add a workspace
 * (a path, or "Browse…" for the folder picker), then each workspace with its sessions (the first
 * GROUP_PAGE, "Show more" pages on): their names, how long ago they moved, their status badges.
 */
export function Sidebar(props: {
  title: string; connected: boolean; theme: string; toggleTheme: () => void; openSettings: () => void;
  list: ReturnType<typeof useSessionList>; active: string | null; open: (sid: string, turn?: string) => void;
  addWorkspace: (root: string) => void; newSession: (workspaceId: string) => void; pickFolder: () => void;
  showArchived: boolean; setShowArchived: (on: boolean) => void; searchRef: RefObject<HTMLInputElement | null>;
  onError: (e: unknown) => void;
}) {
  const { list } = props;
  // Relative times move on: a render a minute.
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <aside class="sidebar" aria-label="Workspaces and sessions">
      <header class="brand">
        <span class="title">{props.title}</span>
        <span class={`conn ${props.connected ? 'on' : 'off'}`} title={props.connected ? 'connected' : 'disconnected'} role="status" aria-label={props.connected ? 'connected' : 'disconnected'} />
        <button class="icon" onClick={props.toggleTheme} aria-label="Toggle theme" title="Light / dark (Ctrl+Shift+L)"><Icon name={props.theme === 'dark' ? 'sun' : 'moon'} /></button>
        <button class="icon" onClick={props.openSettings} aria-label="Settings" title="Settings (Ctrl+,)"><Icon name="settings" /></button>
      </header>
      <SearchBox open={props.open} onError={props.onError} inputRef={props.searchRef} />
      <AddWorkspace onAdd={props.addWorkspace} onBrowse={props.pickFolder} />
      <nav class="workspaces" aria-label="Sessions">
        {list.workspaces.map((w) => {
          const rows = list.rows[w.id] ?? [];
          const total = list.totals[w.id] ?? rows.length;
          return (
            <section class="workspace" key={w.id} aria-label={`Workspace ${w.name}`}>
              <div class="ws-head">
                <span class="ws-name" title={w.root}>{w.name}</span>
                <button class="icon" aria-label={`New session in ${w.name}`} title="New session" onClick={() => props.newSession(w.id)}><Icon name="plus" /></button>
              </div>
              <ul>
                {rows.map((s) => {
                  const name = sessionName(s);
                  return (
                    <li key={s.id}>
                      <a href={`/s/${s.id}`} class={s.id === props.active ? 'active' : ''} aria-current={s.id === props.active ? 'page' : undefined} title={name}
                        onClick={(e) => { e.preventDefault(); props.open(s.id); }}>
                        <span class="s-title">{name}</span>
                        {s.meta.archived && <span class="badge archived">archived</span>}
                        {s.activity.status !== 'idle'
                          ? <span class={`badge ${s.activity.status}`} title={TITLE[s.activity.status] ?? s.activity.status}>{BADGE[s.activity.status] ?? s.activity.status}</span>
                          : <span class="s-time" title={when(s.meta.updated_at)}>{ago(s.meta.updated_at, now)}</span>}
                      </a>
                    </li>
                  );
                })}
                {rows.length === 0 && <li class="muted small-text" style={{ padding: '2px 8px' }}>No sessions yet</li>}
              </ul>
              {total > rows.length && <MoreButton n={Math.min(GROUP_PAGE * 2, total - rows.length)} onMore={() => list.more(w.id)} onError={props.onError} />}
            </section>
          );
        })}
      </nav>
      <div class="sidebar-foot">
        <label class="toggle"><input type="checkbox" checked={props.showArchived} onChange={(e) => props.setShowArchived(e.currentTarget.checked)} /> Show archived</label>
      </div>
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
      <input aria-label="Workspace folder" placeholder="Add a folder by path" value={root} onInput={(e) => setRoot(e.currentTarget.value)} />
      {root.trim() && <button type="submit" class="primary">Add</button>}
      <button type="button" class="ghost" onClick={props.onBrowse} title="New session in a chosen folder (Ctrl+Shift+O)">Browse…</button>
    </form>
  );
}
