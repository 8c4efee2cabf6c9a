import { useEffect, useRef } from 'preact/hooks';
import type { Socket } from '../api.ts';
import { FilePanel } from '../files.tsx';
import { Icon } from '../icons.tsx';
import { ChangesPanel } from './changes.tsx';
import { McpPanel } from './mcp.tsx';
import { TasksPanel } from './tasks.tsx';
import { TerminalPanel } from './terminal.tsx';

export type PanelTab = 'files' | 'changes' | 'terminal' | 'tasks' | 'mcp';
const TABS: Array<[PanelTab, string]> = [['files', 'Files'], ['changes', 'Changes'], ['terminal', 'Terminal'], ['tasks', 'Tasks'], ['mcp', 'MCP']];

/**
 * The side panel beside the chat (over it on a narrow window): Files, Changes, Terminal, Tasks, MCP as tabs
 * (arrow keys move between them, Escape closes the panel), its width dragged from its left edge (kept in the
 * GUI store).
 */
export function Dock(props: {
  sid: string; cwd?: string; socket: Socket; connected: boolean; theme: string;
  tab: string; setTab: (t: PanelTab) => void; width: string; setWidth: (w: string) => void;
  onClose: () => void; onError: (e: unknown) => void;
}) {
  const tab = (TABS.some(([t]) => t === props.tab) ? props.tab : 'files') as PanelTab;
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});
  useEffect(() => {
    document.documentElement.style.setProperty('--panel-w', `${Math.max(260, Math.min(1200, Number(props.width) || 380))}px`);
  }, [props.width]);

  const onTabKey = (e: KeyboardEvent) => {
    const i = TABS.findIndex(([t]) => t === tab);
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : -1;
    if (next < 0) return;
    e.preventDefault();
    props.setTab(TABS[next]![0]);
    tabRefs.current[TABS[next]![0]]?.focus();
  };
  const startDrag = (e: PointerEvent) => {
    e.preventDefault();
    const startX = e.clientX;
    const start = Number(props.width) || 380;
    let w = start;
    const move = (m: PointerEvent) => {
      w = Math.max(260, Math.min(1200, start + (startX - m.clientX)));
      document.documentElement.style.setProperty('--panel-w', `${w}px`);
    };
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      props.setWidth(String(Math.round(w)));
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    if ((e.target as HTMLElement | null)?.closest?.('.xterm')) return; // Escape belongs to the shell
    e.preventDefault();
    props.onClose();
  };

  return (
    <aside class="dock" aria-label="Side panel" onKeyDown={onKey}>
      <div class="resizer" role="separator" aria-orientation="vertical" aria-label="Resize the side panel" onPointerDown={startDrag} />
      <div class="dock-tabs" role="tablist" aria-label="Panels" onKeyDown={onTabKey}>
        {TABS.map(([t, label]) => (
          <button key={t} ref={(el) => { tabRefs.current[t] = el; }} role="tab" id={`tab-${t}`} aria-controls={`pane-${t}`} aria-selected={t === tab} tabIndex={t === tab ? 0 : -1} class="tab" onClick={() => props.setTab(t)}>{label}</button>
        ))}
        <span class="spacer" />
        <button class="icon" aria-label="Close the side panel" title="Close (Escape)" onClick={props.onClose}><Icon name="x" /></button>
      </div>
      <div class="dock-body" role="tabpanel" id={`pane-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'files' && <FilePanel sid={props.sid} onError={props.onError} />}
        {tab === 'changes' && <ChangesPanel sid={props.sid} socket={props.socket} onError={props.onError} />}
        {tab === 'terminal' && <TerminalPanel sid={props.sid} socket={props.socket} connected={props.connected} theme={props.theme} onError={props.onError} />}
        {tab === 'tasks' && <TasksPanel sid={props.sid} socket={props.socket} onError={props.onError} />}
        {tab === 'mcp' && <McpPanel cwd={props.cwd} onError={props.onError} />}
      </div>
    </aside>
  );
}
