import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import type { Frame, Socket } from '../api.ts';
import { stampStyleNonce } from './csp-nonce.ts';

// One terminal on screen: @xterm/xterm over the terminal_* frames (docs/terminals.md). Loaded on demand
// (its own chunk), so the first paint does not carry xterm.

const THEMES: Record<string, { background: string; foreground: string; cursor: string; selectionBackground: string }> = {
  dark: { background: '#0f1115', foreground: '#e6e6e6', cursor: '#5b9dff', selectionBackground: '#2e4a7a' },
  light: { background: '#f6f8fa', foreground: '#1f2328', cursor: '#0969da', selectionBackground: '#b6d7ff' },
};

export class XtermView {
  private term: Terminal;
  private fit = new FitAddon();
  /** Offset just past the last output written: `since` when attaching again (no gap, no repeat). */
  private end = 0;
  private resizeObserver: ResizeObserver;
  private exited = false;

  constructor(private el: HTMLElement, private sid: string, private id: string, private socket: Socket, theme: string, private onExit: () => void) {
    stampStyleNonce();
    this.term = new Terminal({ fontSize: 13, fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, monospace", theme: THEMES[theme] ?? THEMES.dark, scrollback: 5000 });
    this.term.loadAddon(this.fit);
    this.term.open(el);
    this.term.onData((data) => { if (!this.exited) this.socket.send('terminal_input', { session_id: sid, terminal_id: id, data }); });
    this.term.onResize(({ cols, rows }) => { if (!this.exited) this.socket.send('terminal_resize', { session_id: sid, terminal_id: id, cols, rows }); });
    this.resizeObserver = new ResizeObserver(() => this.refit());
    this.resizeObserver.observe(el);
    this.refit();
    this.attach();
  }

  /** Attaches (again, after a reconnect) from the last offset held. */
  attach(): void {
    void this.socket.request('terminal_attach', { session_id: this.sid, terminal_id: this.id, since: this.end });
  }

  onFrame(f: Frame): void {
    if (f.type !== 'terminal_output' && f.type !== 'terminal_exit') return;
    const p = f.payload;
    if (p.terminal_id !== this.id) return;
    if (f.type === 'terminal_output') {
      const p = f.payload;
      const stop = p.offset + p.data.length;
      if (stop <= this.end) return; // already written (a replay overlapping what we hold)
      this.term.write(p.offset < this.end ? p.data.slice(this.end - p.offset) : p.data);
      this.end = stop;
    } else {
      const code = f.payload.exit_code;
      this.exited = true;
      this.term.write(`\r\n[exited${code === null || code === undefined ? '' : ` with code ${code}`}]\r\n`);
      this.onExit();
    }
  }

  setTheme(theme: string): void {
    this.term.options.theme = THEMES[theme] ?? THEMES.dark;
  }

  focus(): void {
    this.term.focus();
  }

  private refit(): void {
    if (!this.el.clientWidth || !this.el.clientHeight) return;
    try {
      this.fit.fit();
    } catch {
      // not measurable yet (hidden)
    }
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    if (!this.exited) this.socket.send('terminal_detach', { session_id: this.sid, terminal_id: this.id });
    this.term.dispose();
  }
}
