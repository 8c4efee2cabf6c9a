import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Socket } from '../api.ts';
import { isTerminalEvent } from '../frames.ts';
import type { XtermView } from './xterm-view.ts';

type TerminalInfo = { id: string; cwd: string; shell: string; status: 'running' | 'exited'; exit_code?: number | null };

/** The session's terminals: a tab per terminal, a new one in the session folder, close; xterm shows the active one. */
export function TerminalPanel(props: { sid: string; socket: Socket; connected: boolean; theme: string; onError: (e: unknown) => void }) {
  const { sid } = props;
  const [items, setItems] = useState<TerminalInfo[]>([]);
  const [current, setCurrent] = useState<string | null>(null);
  const load = async () => {
    const data = await api<{ items: TerminalInfo[] }>('GET', `/api/v1/sessions/${sid}/terminals`);
    setItems(data.items);
    setCurrent((c) => c && data.items.some((t) => t.id === c) ? c : data.items.filter((t) => t.status === 'running').at(-1)?.id ?? null);
  };
  useEffect(() => {
    setItems([]);
    setCurrent(null);
    load().catch(props.onError);
    return props.socket.listen((f) => {
      if (isTerminalEvent(f) && f.session_id === sid) void load().catch(() => {});
    });
  }, [sid]);

  const create = async () => {
    const t = await api<TerminalInfo>('POST', `/api/v1/sessions/${sid}/terminals`, { cols: 80, rows: 24 });
    setItems((xs) => [...xs.filter((x) => x.id !== t.id), t]);
    setCurrent(t.id);
  };
  const close = async (id: string) => {
    await api('POST', `/api/v1/sessions/${sid}/terminals/${id}:close`);
    await load();
  };

  return (
    <section class="panel terminal-panel" aria-label="Terminal">
      <div class="panel-head">
        <div class="tabs" role="tablist" aria-label="Terminals">
          {items.map((t, i) => (
            <button key={t.id} role="tab" aria-selected={t.id === current} class={`tab ${t.status}`} title={`${t.shell} in ${t.cwd}`} onClick={() => setCurrent(t.id)}>
              {i + 1}{t.status === 'exited' ? ' (exited)' : ''}
            </button>
          ))}
        </div>
        <button class="small" onClick={() => create().catch(props.onError)}>New terminal</button>
        {current && items.find((t) => t.id === current)?.status === 'running' && (
          <button class="ghost" aria-label="Close terminal" onClick={() => close(current).catch(props.onError)}>×</button>
        )}
      </div>
      {current ? <XtermHost key={current} sid={sid} id={current} socket={props.socket} connected={props.connected} theme={props.theme} onExit={() => void load().catch(() => {})} />
        : <p class="muted">No terminal open. "New terminal" starts a shell in the session folder.</p>}
    </section>
  );
}

function XtermHost(props: { sid: string; id: string; socket: Socket; connected: boolean; theme: string; onExit: () => void }) {
  const el = useRef<HTMLDivElement>(null);
  const view = useRef<XtermView | null>(null);
  const wasConnected = useRef(props.connected);
  useEffect(() => {
    let disposed = false;
    let off = () => {};
    void import('./xterm-view.ts').then(({ XtermView }) => {
      if (disposed || !el.current) return;
      const v = new XtermView(el.current, props.sid, props.id, props.socket, props.theme, props.onExit);
      view.current = v;
      off = props.socket.listen((f) => v.onFrame(f));
      v.focus();
    });
    return () => {
      disposed = true;
      off();
      view.current?.dispose();
      view.current = null;
    };
  }, []);
  useEffect(() => {
    // Back from a dropped connection: attach again from the last offset held.
    if (props.connected && !wasConnected.current) view.current?.attach();
    wasConnected.current = props.connected;
  }, [props.connected]);
  useEffect(() => view.current?.setTheme(props.theme), [props.theme]);
  return <div class="xterm-host" ref={el} data-terminal={props.id} />;
}
