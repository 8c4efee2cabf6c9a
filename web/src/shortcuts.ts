import { useEffect, useRef } from 'preact/hooks';

// Global keyboard shortcuts (docs/web-ui.md "Keyboard"). Plain keys only act outside text fields;
// Escape is handled where something can be closed (dialogs, search results, previews, forms).

export interface ShortcutActions {
  search(): void;
  newSession(): void;
  panel(tab: 'files' | 'terminal'): void;
  settings(): void;
  theme(): void;
}

const typing = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));

export function useShortcuts(actions: ShortcutActions): void {
  const latest = useRef(actions);
  latest.current = actions;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const actions = latest.current;
      const mod = e.ctrlKey || e.metaKey;
      let act: (() => void) | null = null;
      if (mod && !e.shiftKey && e.key.toLowerCase() === 'k') act = actions.search;
      else if (!mod && !e.altKey && e.key === '/' && !typing(e.target)) act = actions.search;
      else if (mod && e.shiftKey && e.key.toLowerCase() === 'o') act = actions.newSession;
      else if (mod && e.key === '`') act = () => actions.panel('terminal');
      else if (mod && e.shiftKey && e.key.toLowerCase() === 'e') act = () => actions.panel('files');
      else if (mod && e.key === ',') act = actions.settings;
      else if (mod && e.shiftKey && e.key.toLowerCase() === 'l') act = actions.theme;
      if (!act) return;
      e.preventDefault();
      act();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
