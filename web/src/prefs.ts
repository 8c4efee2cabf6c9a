import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';

// UI preferences (theme, the side panel, its tab and width) live in the daemon's GUI store
// (/api/v1/gui/store/*, spec part-b "GUI store"), so they follow the user to another browser; localStorage
// holds a copy for the first paint (no flash of the wrong theme before the store answers).

const PREFIX = 'svc-code.';

/**
 * The last write of each key: a key's writes go out one after another, so two quick changes (a tab, then
 * the next) reach the store in the order they were made (sent side by side, the first could land last).
 */
const writes = new Map<string, Promise<unknown>>();
/** Local changes made per key so far: a store read that started before the last one does not override it. */
const changes = new Map<string, number>();

/** A preference: localStorage at once, then the GUI store's value once `ready` (the token is known). */
export function usePref(key: string, fallback: string, ready = true): [string, (v: string) => void] {
  const full = PREFIX + key;
  const [value, setValue] = useState<string>(() => localStorage.getItem(full) ?? fallback);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    const asked = changes.get(full) ?? 0;
    api<{ value: string | null }>('GET', `/api/v1/gui/store/getItem?key=${encodeURIComponent(full)}`).then((r) => {
      // A change made here while the store was read wins over what it held.
      if (!live || r.value === null || (changes.get(full) ?? 0) !== asked) return;
      localStorage.setItem(full, r.value);
      setValue(r.value);
    }).catch(() => {});
    return () => { live = false; };
  }, [ready]);
  const set = (v: string) => {
    setValue(v);
    localStorage.setItem(full, v);
    changes.set(full, (changes.get(full) ?? 0) + 1);
    const next = (writes.get(full) ?? Promise.resolve())
      .then(() => api('POST', '/api/v1/gui/store/setItem', { key: full, value: v }))
      .catch(() => {})
      .finally(() => { if (writes.get(full) === next) writes.delete(full); });
    writes.set(full, next);
  };
  return [value, set];
}
