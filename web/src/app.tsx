import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, problemOf, setToken, Socket, storeToken, whenUnauthorized, type Frame, type Problem } from './api.ts';
import { applyOps, fromSnapshot, Gap, rebase, type Transcript, type Turn } from './transcript.ts';
import { Chat, type JumpTo } from './chat/chat.tsx';
import { NoSession, Welcome } from './empty.tsx';
import { Icon } from './icons.tsx';
import { NARROW, useMedia } from './media.ts';
import { usePref } from './prefs.ts';
import { SessionBar } from './session-bar.tsx';
import { useShortcuts } from './shortcuts.ts';
import { Dock, type PanelTab } from './panels/dock.tsx';
import { SettingsDialog } from './panels/settings.tsx';
import { Sidebar } from './sidebar/sidebar.tsx';
import { FolderPicker } from './sidebar/folder-picker.tsx';
import { useBranch, useSessionList } from './sidebar/sessions.ts';
import { rememberFirstPrompt } from './sidebar/titles.ts';

const sessionFromPath = () => /^\/s\/([^/]+)/.exec(location.pathname)?.[1] ?? null;

export function App(props: { initialToken: string | null }) {
  const [authed, setAuthed] = useState<boolean>(!!props.initialToken);
  /** Set when a token was refused: the token field says so. */
  const [refused, setRefused] = useState(false);
  const [title, setTitle] = useState(document.title);
  const [theme, setTheme] = usePref('theme', 'dark', authed);
  useEffect(() => { document.documentElement.dataset.theme = theme; }, [theme]);
  // Registered during render: the children's first API calls start in their effects, before this component's.
  whenUnauthorized(() => { setAuthed(false); setRefused(true); });
  useEffect(() => {
    if (!authed) return;
    api('GET', '/api/v1/meta').then((m) => {
      if (m.web_title) {
        document.title = m.web_title;
        setTitle(m.web_title);
      }
    }).catch(() => {});
  }, [authed]);
  if (!authed) return <TokenForm refused={refused} onToken={(t) => { setToken(t); storeToken(t); setRefused(false); setAuthed(true); }} />;
  return <Main title={title} theme={theme} toggleTheme={() => setTheme(theme === 'dark' ? 'light' : 'dark')} />;
}

function TokenForm(props: { refused: boolean; onToken: (t: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form class="token-form" onSubmit={(e) => { e.preventDefault(); if (value.trim()) props.onToken(value.trim()); }}>
      <h1>Connect to svc-code</h1>
      <p>Open the URL the daemon printed when it started, or paste the access token it printed here.</p>
      {props.refused && <p class="problem" role="alert">That token was not accepted: it may be mistyped, or the daemon's token changed since. Paste the one it prints now.</p>}
      <label>Access token <input aria-label="Access token" type="password" value={value} onInput={(e) => setValue(e.currentTarget.value)} autofocus /></label>
      <button type="submit" class="primary">Connect</button>
    </form>
  );
}

function Main(props: { title: string; theme: string; toggleTheme: () => void }) {
  const [active, setActive] = useState<string | null>(sessionFromPath());
  const list = useSessionList(active);
  const sessions = list.all;
  const [connected, setConnected] = useState(false);
  /** Connected once, or long enough since the page opened: a closed socket now means offline (not "still starting"). */
  const [settled, setSettled] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const [showArchived, setShowArchived] = useState(false);
  const [panelOpen, setPanelOpen] = usePref('panel.open', '0');
  const showFiles = panelOpen === '1';
  const setShowFiles = (on: boolean) => setPanelOpen(on ? '1' : '0');
  const [panelTab, setPanelTab] = usePref('panel.tab', 'files');
  const [panelWidth, setPanelWidth] = usePref('panel.width', '380');
  // The sidebar: a column the reader may fold away on a wide window (kept), a drawer over the chat on a narrow one.
  const narrow = useMedia(NARROW);
  const [sidebarPref, setSidebarPref] = usePref('sidebar.open', '1');
  const [drawer, setDrawer] = useState(false);
  const sidebarShown = narrow ? drawer : sidebarPref === '1';
  const toggleSidebar = () => (narrow ? setDrawer(!drawer) : setSidebarPref(sidebarPref === '1' ? '0' : '1'));
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
    sidebarTimer.current = window.setTimeout(() => void loadSidebar().catch((e) => console.warn('session list not read', e)), 100);
  };

  /** The first prompt of a transcript that holds its first turn: the session's name until it has a title. */
  const noteFirstPrompt = (sid: string, t: Transcript) => {
    if (t.hasMoreOlder) return;
    const first = t.items.find((i): i is Turn => i.kind === 'turn');
    if (first?.prompt && rememberFirstPrompt(sid, first.prompt, true)) rerender();
  };

  const reload = async (sid: string) => {
    const data = await api('GET', `/api/v1/sessions/${sid}/transcript?agent_id=main&page_size=50`);
    if (activeRef.current !== sid) return;
    tr.current = { sid, t: fromSnapshot(data, data.seq, data.has_more) };
    noteFirstPrompt(sid, tr.current.t);
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
    noteFirstPrompt(sid, cur.t);
    rerender();
  };

  const socket = useMemo(() => new Socket(
    (f) => onFrame(f),
    () => {
      const sid = activeRef.current;
      setSettled(true);
      setError(null); // a banner raised while the daemon was out of reach is stale now
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
      noteFirstPrompt(cur.sid, cur.t);
      return rerender();
    }
    if (f.type.startsWith('event.session.') || f.type.startsWith('event.workspace.') || f.type === 'session.meta.updated') refreshSidebar();
  };

  useEffect(() => {
    loadSidebar().catch((e) => setError(problemOf(e, 'read the list of sessions')));
    socket.start();
    const settle = window.setTimeout(() => setSettled(true), 3000);
    const onPop = () => setActive(sessionFromPath());
    const onOnline = () => socket.retryNow();
    window.addEventListener('popstate', onPop);
    window.addEventListener('online', onOnline);
    (window as unknown as { __svcSocket: Socket }).__svcSocket = socket; // browser tests cut the connection through this
    return () => { socket.stop(); clearTimeout(settle); window.removeEventListener('popstate', onPop); window.removeEventListener('online', onOnline); };
  }, []);

  useEffect(() => {
    void loadSidebar().catch((e) => console.warn('session list not read', e));
  }, [showArchived]);

  useEffect(() => {
    tr.current = null;
    rerender();
    if (active) {
      reload(active).catch((e) => setError(problemOf(e, 'open the session')));
    }
  }, [active]);

  /** A turn to bring into view in the chat (a search hit), for the session it belongs to. */
  const [jump, setJump] = useState<(JumpTo & { sid: string }) | null>(null);
  const jumps = useRef(0);
  const open = (sid: string, turn?: string) => {
    if (tr.current && tr.current.sid !== sid) socket.send('unsubscribe_v2', { session_id: tr.current.sid });
    history.pushState(null, '', `/s/${sid}`);
    setActive(sid);
    setDrawer(false);
    setJump(turn ? { sid, turn, n: ++jumps.current } : null);
  };

  /** Runs `fn`; a failure shows the error banner, saying what was being done. True when it succeeded. */
  const act = async (fn: () => Promise<unknown>, doing?: string): Promise<boolean> => {
    setError(null);
    try {
      await fn();
      return true;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 40101)) setError(problemOf(e, doing));
      return false;
    }
  };

  const showError = (e: unknown) => setError(problemOf(e));
  const newSessionIn = async (workspace_id: string) => {
    const s = await api('POST', '/api/v1/sessions', { workspace_id });
    await loadSidebar();
    open(s.id);
  };
  useShortcuts({
    search: () => {
      // At once when the box is there (a key pressed next goes to it); after the sidebar opened otherwise.
      if (sidebarShown) return searchRef.current?.focus();
      toggleSidebar();
      requestAnimationFrame(() => searchRef.current?.focus());
    },
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
  const row = sessions.find((r) => r.id === active);
  const branch = useBranch(active ? row?.workspace.id : undefined);
  const offline = settled && !connected;
  const layout = ['layout', active && showFiles ? 'with-files' : '', sidebarShown ? (narrow ? 'sidebar-open' : '') : 'no-sidebar'].filter(Boolean).join(' ');
  return (
    <div class={layout}>
      <Sidebar title={props.title} connected={connected} theme={props.theme} toggleTheme={props.toggleTheme} openSettings={() => setSettings(true)}
        list={list} active={active} open={open} showArchived={showArchived} setShowArchived={setShowArchived} searchRef={searchRef} onError={showError}
        addWorkspace={(root) => act(async () => { await api('POST', '/api/v1/workspaces', { root }); await loadSidebar(); }, 'add the folder')}
        newSession={(workspace_id) => act(() => newSessionIn(workspace_id), 'start a session')} pickFolder={() => setPicking(true)} />
      <div class="scrim" onClick={() => setDrawer(false)} />
      <main class="chat">
        <header class="topbar session-bar">
          <button class="icon" aria-label="Toggle sidebar" aria-expanded={sidebarShown} title="Sessions" onClick={toggleSidebar}><Icon name="sidebar" /></button>
          {active && t
            ? <SessionBar sid={active} row={row} branch={branch} panel={showFiles} togglePanel={() => setShowFiles(!showFiles)}
                rename={(title) => void act(async () => { await api('POST', `/api/v1/sessions/${active}/profile`, { title }); await loadSidebar(); }, 'rename the session')}
                archive={(archived) => void act(async () => { await api('POST', `/api/v1/sessions/${active}:${archived ? 'archive' : 'restore'}`); await loadSidebar(); }, archived ? 'archive the session' : 'restore the session')}
                remove={() => void act(async () => {
                  await api('POST', `/api/v1/sessions/${active}:delete`);
                  history.pushState(null, '', '/');
                  setActive(null);
                  await loadSidebar();
                }, 'delete the session')} />
            : <span class="s-name muted">{active || sidebarShown ? '' : props.title}</span>}
        </header>
        {offline && (
          <div class="banner banner-offline" role="status">
            <span class="grow"><strong>Offline.</strong> The daemon can't be reached; reconnecting by itself. Sending is paused until then.</span>
            <button class="small" onClick={() => socket.retryNow()}>Retry now</button>
          </div>
        )}
        {error && (
          <div class="banner banner-error" role="alert">
            <div class="grow">
              <strong>{error.message}</strong>
              {error.details && <details><summary>Details</summary><pre>{error.details}</pre></details>}
            </div>
            <button class="icon" aria-label="Dismiss the error" onClick={() => setError(null)}><Icon name="x" /></button>
          </div>
        )}
        {!active && list.loaded && list.workspaces.length === 0 && <Welcome title={props.title} pickFolder={() => setPicking(true)} />}
        {!active && list.loaded && list.workspaces.length > 0 && <NoSession workspaces={list.workspaces} start={(id) => void act(() => newSessionIn(id), 'start a session')} />}
        {active && !t && <div class="empty muted">Loading…</div>}
        {active && t && <Chat sid={active} t={t} act={act} loadOlder={() => act(() => loadOlder(active), 'load older turns').then(() => undefined)} offline={offline}
          cwd={row?.workspace.cwd} branch={branch}
          jumpTo={jump?.sid === active ? jump : null} />}
      </main>
      {active && showFiles && <Dock sid={active} cwd={row?.workspace.cwd} socket={socket} connected={connected} theme={props.theme}
        tab={panelTab} setTab={setPanelTab} width={panelWidth} setWidth={setPanelWidth} onClose={() => setShowFiles(false)} onError={showError} />}
      {picking && <FolderPicker onClose={() => setPicking(false)} onError={showError} onPick={(root) => void act(async () => {
        const ws = await api('POST', '/api/v1/workspaces', { root });
        await newSessionIn(ws.id);
      }, 'start a session in that folder')} />}
      {settings && <SettingsDialog onClose={() => setSettings(false)} onError={showError} />}
    </div>
  );
}
