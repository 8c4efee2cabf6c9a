import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';

// UI preferences (theme, the side panel, its tab and width) live in the daemon's GUI store
// (/api/v1/gui/store/*, spec part-b "GUI store"), so they follow the user to another browser; localStorage
// holds a copy for the first paint (no flash of the wrong theme before the store answers).

const PREFIX = 'svc-code.';

/** A preference: localStorage at once, then the GUI store's value once `ready` (the token is known). */
export function usePref(key: string, fallback: string, ready = true): [string, (v: string) => void] {
  const full = PREFIX + key;
  const [value, setValue] = useState<string>(() => localStorage.getItem(full) ?? fallback);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    api<{ value: string | null }>('GET', `/api/v1/gui/store/getItem?key=${encodeURIComponent(full)}`).then((r) => {
      if (!live || r.value === null) return;
      localStorage.setItem(full, r.value);
      setValue(r.value);
    }).catch(() => {});
    return () => { live = false; };
  }, [ready]);
  const set = (v: string) => {
    setValue(v);
    localStorage.setItem(full, v);
    void api('POST', '/api/v1/gui/store/setItem', { key: full, value: v }).catch(() => {});
  };
  return [value, set];
}
