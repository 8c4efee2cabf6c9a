import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, setToken, Socket, storeToken, whenUnauthorized, type Frame } from './api.ts';
import { applyOps, fromSnapshot, Gap, rebase, type Transcript, type Turn } from './transcript.ts';
import { Chat, type JumpTo } from './chat/chat.tsx';
import { usePref } from './prefs.ts';
import { useShortcuts } from './shortcuts.ts';
import { Dock, type PanelTab } from './panels/dock.tsx';
import { SettingsDialog } from './panels/settings.tsx';
import { Sidebar } from './sidebar/sidebar.tsx';
import { FolderPicker } from './sidebar/folder-picker.tsx';
import { useSessionList, type SessionRow } from './sidebar/sessions.ts';

const sessionFromPath = () => /^\/s\/([^/]+)/.exec(location.pathname)?.[1] ?? null;

export function App(props: { initialToken: string | null }) {
  const [authed, setAuthed] = useState<boolean>(!!props.initialToken);
  const [title, setTitle] = useState(document.title);
  const [theme, setTheme] = usePref('theme', 'dark', authed);
  useEffect(() => { document.documentElement.dataset.theme = theme; }, [theme]);
  // Registered during render: the children's first API calls start in their effects, before this component's.
  whenUnauthorized(() => setAuthed(false));
  useEffect(() => {
    if (!authed) return;
    api('GET', '/api/v1/meta').then((m) => {
      if (m.web_title) {
        document.title = m.web_title;
        setTitle(m.web_title);
      }
    }).catch(() => {});
  }, [authed]);
  if (!authed) return <TokenForm onToken={(t) => { setToken(t); storeToken(t); setAuthed(true); }} />;
  return <Main title={title} theme={theme} toggleTheme={() => setTheme(theme === 'dark' ? 'light' : 'dark')} />;
}

function TokenForm(props: { onToken: (t: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form class="token-form" onSubmit={(e) => { e.preventDefault(); if (value.trim()) props.onToken(value.trim()); }}>
      <h1>svc-code</h1>
      <p>Paste the access token the daemon printed (or open the URL it printed).</p>
      <label>Access token <input aria-label="Access token" type="password" value={value} onInput={(e) => setValue(e.currentTarget.value)} autofocus /></label>
      <button type="submit">Connect</button>
    </form>
  );
}

function Main(props: { title: string; theme: string; toggleTheme: () => void }) {
  const [active, setActive] = useState<string | null>(sessionFromPath());
  const list = useSessionList(active);
  const sessions = list.all;
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [showArchived, setShowArchived] = useState(false);
  const [panelOpen, setPanelOpen] = usePref('panel.open', '0');
  const showFiles = panelOpen === '1';
  const setShowFiles = (on: boolean) => setPanelOpen(on ? '1' : '0');
  const [panelTab, setPanelTab] = usePref('panel.tab', 'files');
  const [panelWidth, setPanelWidth] = usePref('panel.width', '380');
  const [picking, setPicking] = useState(false);
  const [settings, setSettings] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const archivedRef = useRef(showArchived);
  archivedRef.current = showArchived;
  const [, setVersion] = useState(0);
  const tr = useRef<{ sid: string; t: Transcript } | null>(null);
  const activeRef = useRef(active);
  activeRef.current = active;
  const rerender = () => setVersion((v) => v + 1);

  const loadSidebar = () => {
    list.setArchived(archivedRef.current);
    return list.load();
  };
  const sidebarTimer = useRef<number | undefined>(undefined);
  const refreshSidebar = () => {
    clearTimeout(sidebarTimer.current);
    sidebarTimer.current = window.setTimeout(() => void loadSidebar().catch(() => {}), 100);
  };

  const reload = async (sid: string) => {
    const data = await api('GET', `/api/v1/sessions/${sid}/transcript?agent_id=main&page_size=50`);
    if (activeRef.current !== sid) return;
    tr.current = { sid, t: fromSnapshot(data, data.seq, data.has_more) };
    rerender();
    subscribe(sid);
  };

  /** The page of turns before the oldest one held (clients.md B7: before_turn). */
  const loadOlder = async (sid: string) => {
    const cur = tr.current;
    const first = cur?.t.items.find((i) => i.kind === 'turn') as Turn | undefined;
    if (!cur || cur.sid !== sid || !first) return;
    const data = await api('GET', `/api/v1/sessions/${sid}/transcript?agent_id=main&page_size=50&before_turn=${encodeURIComponent(first.turnId)}`);
    if (tr.current !== cur) return;
    const older = fromSnapshot(data, cur.t.seq, data.has_more);
    cur.t.items = [...older.items, ...cur.t.items];
    for (const [k, v] of older.interactions) if (!cur.t.interactions.has(k)) cur.t.interactions.set(k, v);
    for (const [k, v] of older.prompts) if (!cur.t.prompts.has(k)) cur.t.prompts.set(k, v);
    for (const [k, v] of older.attachments) if (!cur.t.attachments.has(k)) cur.t.attachments.set(k, v);
    cur.t.hasMoreOlder = !!data.has_more;
    rerender();
  };

  const socket = useMemo(() => new Socket(
    (f) => onFrame(f),
    () => {
      const sid = activeRef.current;
      void socket.request('client_hello', { client_id: 'web_ui' });
      if (sid) subscribe(sid);
      refreshSidebar();
    },
    setConnected,
  ), []);

  const subscribe = (sid: string) => {
    if (!socket.connected) return;
    const seq = tr.current?.sid === sid ? tr.current.t.seq : undefined;
    void socket.request('subscribe_v2', { session_id: sid, transcript: { main: 'delta' }, ...(seq !== undefined ? { transcript_since: { main: seq } } : {}) });
  };

  const onFrame = (f: Frame) => {
    // Every session's busy / approval / question changes come to every connection: the row's badge is set
    // from the frame (a list read happens only on other session events and after a reconnect).
    if (f.type === 'event.session.status_changed' || f.type === 'event.session.work_changed') {
      const id = f.payload?.session_id ?? f.session_id;
      if (typeof id === 'string') list.applyWork(id, f.payload ?? {});
      return;
    }
    if (f.type === 'transcript.reset' || f.type === 'transcript.ops') {
      const cur = tr.current;
      const p = f.payload ?? {};
      if (!cur || f.session_id !== cur.sid || p.agent_id !== 'main') return;
      if (f.type === 'transcript.reset') {
        if (!p.snapshot?.items?.length && cur.t.items.length) return void reload(cur.sid);
        cur.t = rebase(cur.t, fromSnapshot(p.snapshot, p.seq, !!p.has_more_older));
        return rerender();
      }
      if (typeof p.seq === 'number' && cur.t.seq !== undefined) {
        if (p.seq <= cur.t.seq) return;
        if (p.seq !== cur.t.seq + 1) return void reload(cur.sid);
      }
      try {
        applyOps(cur.t, p.ops ?? []);
        if (typeof p.seq === 'number') cur.t.seq = p.seq;
      } catch (e) {
        if (e instanceof Gap) return void reload(cur.sid);
        throw e;
      }
      return rerender();
    }
    if (f.type.startsWith('event.session.') || f.type.startsWith('event.workspace.') || f.type === 'session.meta.updated') refreshSidebar();
  };

  useEffect(() => {
    loadSidebar().catch((e) => setError(String(e.message ?? e)));
    socket.start();
    const onPop = () => setActive(sessionFromPath());
    window.addEventListener('popstate', onPop);
    (window as any).__svcSocket = socket; // browser tests cut the connection through this
    return () => { socket.stop(); window.removeEventListener('popstate', onPop); };
  }, []);

  useEffect(() => {
    void loadSidebar().catch(() => {});
  }, [showArchived]);

  useEffect(() => {
    tr.current = null;
    rerender();
    if (active) {
      reload(active).catch((e) => setError(String(e.message ?? e)));
    }
  }, [active]);

  /** A turn to bring into view in the chat (a search hit), for the session it belongs to. */
  const [jump, setJump] = useState<(JumpTo & { sid: string }) | null>(null);
  const jumps = useRef(0);
  const open = (sid: string, turn?: string) => {
    if (tr.current && tr.current.sid !== sid) socket.send('unsubscribe_v2', { session_id: tr.current.sid });
    history.pushState(null, '', `/s/${sid}`);
    setActive(sid);
    setJump(turn ? { sid, turn, n: ++jumps.current } : null);
  };

  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 40101)) setError(String((e as Error).message ?? e));
    }
  };

  const showError = (e: unknown) => setError(String((e as Error).message ?? e));
  const newSessionIn = async (workspace_id: string) => {
    const s = await api('POST', '/api/v1/sessions', { workspace_id });
    await loadSidebar();
    open(s.id);
  };
  useShortcuts({
    search: () => searchRef.current?.focus(),
    newSession: () => setPicking(true),
    panel: (tab: PanelTab) => {
      if (showFiles && panelTab === tab) return setShowFiles(false);
      setPanelTab(tab);
      setShowFiles(true);
    },
    settings: () => setSettings(true),
    theme: props.toggleTheme,
  });

  const t = tr.current?.sid === active ? tr.current.t : null;
  return (
    <div class={`layout${active && showFiles ? ' with-files' : ''}`}>
      <Sidebar title={props.title} connected={connected} theme={props.theme} toggleTheme={props.toggleTheme} openSettings={() => setSettings(true)}
        list={list} active={active} open={open} showArchived={showArchived} setShowArchived={setShowArchived} searchRef={searchRef} onError={showError}
        addWorkspace={(root) => act(async () => { await api('POST', '/api/v1/workspaces', { root }); await loadSidebar(); })}
        newSession={(workspace_id) => act(() => newSessionIn(workspace_id))} pickFolder={() => setPicking(true)} />
      <main class="chat">
        {error && <div class="banner-error" role="alert">{error} <button class="ghost" onClick={() => setError(null)}>×</button></div>}
        {!active && <div class="empty">Add a workspace, then start a session in it.</div>}
        {active && !t && <div class="empty">Loading…</div>}
        {active && t && (
          <SessionBar row={sessions.find((r) => r.id === active)} files={showFiles} toggleFiles={() => setShowFiles(!showFiles)}
            rename={(title) => act(async () => { await api('POST', `/api/v1/sessions/${active}/profile`, { title }); await loadSidebar(); })}
            archive={(archived) => act(async () => { await api('POST', `/api/v1/sessions/${active}:${archived ? 'archive' : 'restore'}`); await loadSidebar(); })}
            remove={() => act(async () => {
              await api('POST', `/api/v1/sessions/${active}:delete`);
              history.pushState(null, '', '/');
              setActive(null);
              await loadSidebar();
            })} />
        )}
        {active && t && <Chat sid={active} t={t} act={act} loadOlder={() => act(() => loadOlder(active))}
          jumpTo={jump?.sid === active ? jump : null} />}
      </main>
      {active && showFiles && <Dock sid={active} cwd={sessions.find((r) => r.id === active)?.workspace.cwd} socket={socket} connected={connected} theme={props.theme}
        tab={panelTab} setTab={setPanelTab} width={panelWidth} setWidth={setPanelWidth} onClose={() => setShowFiles(false)} onError={showError} />}
      {picking && <FolderPicker onClose={() => setPicking(false)} onError={showError} onPick={(root) => act(async () => {
        const ws = await api('POST', '/api/v1/workspaces', { root });
        await newSessionIn(ws.id);
      })} />}
      {settings && <SettingsDialog onClose={() => setSettings(false)} onError={showError} />}
    </div>
  );
}

function SessionBar(props: { row: SessionRow | undefined; files: boolean; toggleFiles: () => void; rename: (title: string) => void; archive: (archived: boolean) => void; remove: () => void }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const row = props.row;
  const name = row?.meta.title || row?.meta.last_prompt || 'New session';
  return (
    <div class="session-bar">
      {editing
        ? <form class="rename" onSubmit={(e) => { e.preventDefault(); if (title.trim()) props.rename(title.trim()); setEditing(false); }}>
            <input aria-label="Session title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} autofocus />
            <button type="submit">Save</button>
            <button type="button" class="ghost" onClick={() => setEditing(false)}>Cancel</button>
          </form>
        : <h2 class="s-name">{name}</h2>}
      {row && row.activity.status !== 'idle' && <span class={`badge ${row.activity.status}`}>{row.activity.status}</span>}
      <span class="spacer" />
      <button class="ghost" aria-pressed={props.files} onClick={props.toggleFiles} title="Files, terminal, tasks, MCP (Ctrl+Shift+E, Ctrl+`)">Panels</button>
      {!editing && <button class="ghost" onClick={() => { setTitle(row?.meta.title ?? ''); setEditing(true); }}>Rename</button>}
      {row && <button class="ghost" onClick={() => props.archive(!row.meta.archived)}>{row.meta.archived ? 'Restore' : 'Archive'}</button>}
      <button class="ghost" onClick={() => { if (confirm('Delete this session for good?')) props.remove(); }}>Delete</button>
    </div>
  );
}
