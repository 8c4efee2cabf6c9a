import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, problemOf, setToken, storeToken, whenUnauthorized, type Problem, type Socket } from './api.ts';
import { Chat, type JumpTo } from './chat/chat.tsx';
import { NoSession, Welcome } from './empty.tsx';
import { Icon } from './icons.tsx';
import { useFeed } from './feed.ts';
import { useLayout } from './layout.ts';
import { usePref } from './prefs.ts';
import { SessionBar } from './session-bar.tsx';
import { useShortcuts } from './shortcuts.ts';
import { Dock, type PanelTab } from './panels/dock.tsx';
import { SettingsDialog } from './panels/settings.tsx';
import { Sidebar } from './sidebar/sidebar.tsx';
import { FolderPicker } from './sidebar/folder-picker.tsx';
import { useBranch, useSessionList, type SessionRow } from './sidebar/sessions.ts';

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

type Act = (fn: () => Promise<unknown>, doing?: string) => Promise<boolean>;

function Main(props: { title: string; theme: string; toggleTheme: () => void }) {
  const [active, setActive] = useState<string | null>(sessionFromPath());
  const list = useSessionList(active);
  const [connected, setConnected] = useState(false);
  /** Connected once, or long enough since the page opened: a closed socket now means offline (not "still starting"). */
  const [settled, setSettled] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const [showArchived, setShowArchived] = useState(false);
  const ui = useLayout();
  const [picking, setPicking] = useState(false);
  const [settings, setSettings] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const archivedRef = useRef(showArchived);
  archivedRef.current = showArchived;
  const loadSidebar = () => {
    list.setArchived(archivedRef.current);
    return list.load();
  };
  const refreshSidebar = useDebounced(() => void loadSidebar().catch((e) => console.warn('session list not read', e)), 100);
  const feed = useFeed(active, {
    onOpen: () => { setSettled(true); setError(null); refreshSidebar(); }, // a banner raised while the daemon was out of reach is stale now
    onState: setConnected,
    onWork: (id, p) => list.applyWork(id, p),
    onListChanged: refreshSidebar,
  });
  const socket = feed.socket;
  useStartup(socket, loadSidebar, setSettled, setError, () => setActive(sessionFromPath()));
  useReads(showArchived, loadSidebar, active, feed, setError);

  /** A turn to bring into view in the chat (a search hit), for the session it belongs to. */
  const [jump, setJump] = useState<(JumpTo & { sid: string }) | null>(null);
  const jumps = useRef(0);
  const open = (sid: string, turn?: string) => {
    feed.leave(sid);
    history.pushState(null, '', `/s/${sid}`);
    setActive(sid);
    ui.setDrawer(false);
    setJump(turn ? { sid, turn, n: ++jumps.current } : null);
  };
  const act = actWith(setError);
  const showError = (e: unknown) => setError(problemOf(e));
  const newSessionIn = async (workspace_id: string) => {
    const s = await api('POST', '/api/v1/sessions', { workspace_id });
    await loadSidebar();
    open(s.id);
  };
  useMainShortcuts(ui, searchRef, setPicking, setSettings, props.toggleTheme);

  const t = feed.t;
  const row = list.all.find((r) => r.id === active);
  const branch = useBranch(active ? row?.workspace.id : undefined);
  const offline = settled && !connected;
  const layout = ['layout', active && ui.showFiles ? 'with-files' : '', ui.sidebarShown ? (ui.narrow ? 'sidebar-open' : '') : 'no-sidebar'].filter(Boolean).join(' ');
  const start = (id: string) => void act(() => newSessionIn(id), 'start a session');
  const startIn = (root: string) => void act(async () => newSessionIn((await api('POST', '/api/v1/workspaces', { root })).id), 'start a session in that folder');
  return (
    <div class={layout}>
      <Sidebar title={props.title} connected={connected} theme={props.theme} toggleTheme={props.toggleTheme} openSettings={() => setSettings(true)}
        list={list} active={active} open={open} showArchived={showArchived} setShowArchived={setShowArchived} searchRef={searchRef} onError={showError}
        addWorkspace={(root) => act(async () => { await api('POST', '/api/v1/workspaces', { root }); await loadSidebar(); }, 'add the folder')}
        newSession={(workspace_id) => act(() => newSessionIn(workspace_id), 'start a session')} pickFolder={() => setPicking(true)} />
      <div class="scrim" onClick={() => ui.setDrawer(false)} />
      <main class="chat">
        <TopBar title={props.title} active={active} held={!!t} row={row} branch={branch} ui={ui} act={act} loadSidebar={loadSidebar} closed={() => setActive(null)} />
        <Banners offline={offline} retry={() => socket.retryNow()} error={error} dismiss={() => setError(null)} />
        {!active && list.loaded && list.workspaces.length === 0 && <Welcome title={props.title} pickFolder={() => setPicking(true)} />}
        {!active && list.loaded && list.workspaces.length > 0 && <NoSession workspaces={list.workspaces} start={start} />}
        {active && !t && <div class="empty muted">Loading…</div>}
        {active && t && <Chat sid={active} t={t} act={act} loadOlder={() => act(() => feed.loadOlder(active), 'load older turns').then(() => undefined)} offline={offline}
          cwd={row?.workspace.cwd} branch={branch}
          jumpTo={jump?.sid === active ? jump : null} />}
      </main>
      {active && ui.showFiles && <Dock sid={active} cwd={row?.workspace.cwd} socket={socket} connected={connected} theme={props.theme}
        tab={ui.panelTab} setTab={ui.setPanelTab} width={ui.panelWidth} setWidth={ui.setPanelWidth} onClose={() => ui.setShowFiles(false)} onError={showError} />}
      {picking && <FolderPicker onClose={() => setPicking(false)} onError={showError} onPick={startIn} />}
      {settings && <SettingsDialog onClose={() => setSettings(false)} onError={showError} />}
    </div>
  );
}

/** The list read again when archived sessions are shown or hidden; the transcript read when another session opens. */
function useReads(showArchived: boolean, loadSidebar: () => Promise<void>, active: string | null, feed: ReturnType<typeof useFeed>, setError: (p: Problem) => void) {
  useEffect(() => void loadSidebar().catch((e) => console.warn('session list not read', e)), [showArchived]);
  useEffect(() => {
    feed.clear();
    if (active) feed.reload(active).catch((e) => setError(problemOf(e, 'open the session')));
  }, [active]);
}

/** `fn` run again `ms` after the last call (a burst of list events reads the list once). */
function useDebounced(fn: () => void, ms: number): () => void {
  const timer = useRef<number | undefined>(undefined);
  return () => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(fn, ms);
  };
}

/** On mount: the first list read, the socket started, "settled" after 3 s, back / forward and the browser coming online. */
function useStartup(socket: Socket, loadSidebar: () => Promise<void>, setSettled: (on: boolean) => void, setError: (p: Problem) => void, onPop: () => void) {
  useEffect(() => {
    loadSidebar().catch((e) => setError(problemOf(e, 'read the list of sessions')));
    socket.start();
    const settle = window.setTimeout(() => setSettled(true), 3000);
    const onOnline = () => socket.retryNow();
    window.addEventListener('popstate', onPop);
    window.addEventListener('online', onOnline);
    (window as unknown as { __svcSocket: Socket }).__svcSocket = socket; // browser tests cut the connection through this
    return () => { socket.stop(); clearTimeout(settle); window.removeEventListener('popstate', onPop); window.removeEventListener('online', onOnline); };
  }, []);
}

/** Runs `fn`; a failure shows the error banner, saying what was being done. True when it succeeded. */
function actWith(setError: (p: Problem | null) => void): Act {
  return async (fn, doing) => {
    setError(null);
    try {
      await fn();
      return true;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 40101)) setError(problemOf(e, doing));
      return false;
    }
  };
}

function useMainShortcuts(ui: ReturnType<typeof useLayout>, searchRef: { current: HTMLInputElement | null }, setPicking: (on: boolean) => void,
  setSettings: (on: boolean) => void, toggleTheme: () => void) {
  useShortcuts({
    search: () => {
      // At once when the box is there (a key pressed next goes to it); after the sidebar opened otherwise.
      if (ui.sidebarShown) return searchRef.current?.focus();
      ui.toggleSidebar();
      requestAnimationFrame(() => searchRef.current?.focus());
    },
    newSession: () => setPicking(true),
    panel: (tab: PanelTab) => {
      if (ui.showFiles && ui.panelTab === tab) return ui.setShowFiles(false);
      ui.setPanelTab(tab);
      ui.setShowFiles(true);
    },
    settings: () => setSettings(true),
    theme: toggleTheme,
  });
}

/** The bar over the chat: the sidebar toggle and the open session's bar (rename, archive, delete). */
function TopBar(props: {
  title: string; active: string | null; held: boolean; row: SessionRow | undefined; branch: string | null | undefined; ui: ReturnType<typeof useLayout>;
  act: Act; loadSidebar: () => Promise<void>; closed: () => void;
}) {
  const { active, ui, act, loadSidebar } = props;
  return (
    <header class="topbar session-bar">
      <button class="icon" aria-label="Toggle sidebar" aria-expanded={ui.sidebarShown} title="Sessions" onClick={ui.toggleSidebar}><Icon name="sidebar" /></button>
      {active && props.held
        ? <SessionBar sid={active} row={props.row} branch={props.branch} panel={ui.showFiles} togglePanel={() => ui.setShowFiles(!ui.showFiles)}
            rename={(title) => void act(async () => { await api('POST', `/api/v1/sessions/${active}/profile`, { title }); await loadSidebar(); }, 'rename the session')}
            archive={(archived) => void act(async () => { await api('POST', `/api/v1/sessions/${active}:${archived ? 'archive' : 'restore'}`); await loadSidebar(); }, archived ? 'archive the session' : 'restore the session')}
            remove={() => void act(async () => {
              await api('POST', `/api/v1/sessions/${active}:delete`);
              history.pushState(null, '', '/');
              props.closed();
              await loadSidebar();
            }, 'delete the session')} />
        : <span class="s-name muted">{active || ui.sidebarShown ? '' : props.title}</span>}
    </header>
  );
}

function Banners(props: { offline: boolean; retry: () => void; error: Problem | null; dismiss: () => void }) {
  const { error } = props;
  return (
    <>
      {props.offline && (
        <div class="banner banner-offline" role="status">
          <span class="grow"><strong>Offline.</strong> The daemon can't be reached; reconnecting by itself. Sending is paused until then.</span>
          <button class="small" onClick={props.retry}>Retry now</button>
        </div>
      )}
      {error && (
        <div class="banner banner-error" role="alert">
          <div class="grow">
            <strong>{error.message}</strong>
            {error.details && <details><summary>Details</summary><pre>{error.details}</pre></details>}
          </div>
          <button class="icon" aria-label="Dismiss the error" onClick={props.dismiss}><Icon name="x" /></button>
        </div>
      )}
    </>
  );
}
