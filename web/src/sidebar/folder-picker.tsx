import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';

type Listing = { path: string; parent: string | null; entries: Array<{ name: string; path: string; is_dir: boolean }> };
type Home = { home: string; recent_roots?: string[] };

/**
 * A modal folder picker over the host's folders (GET /api/v1/fs:browse, starting at GET /api/v1/fs:home):
 * a path field, the parent, the sub-folders (Enter or a click opens one), "Start session here".
 * Escape closes it (the native <dialog>).
 */
export function FolderPicker(props: { onPick: (path: string) => void; onClose: () => void; onError: (e: unknown) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [listing, setListing] = useState<Listing | null>(null);
  const [typed, setTyped] = useState('');
  const [recent, setRecent] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const latest = useRef(0);
  /** The browse in flight when the path field was last edited (0: not edited since). */
  const edited = useRef(0);
  const browse = async (path?: string) => {
    const n = ++latest.current;
    try {
      const l = await api<Listing>('GET', `/api/v1/fs:browse${path ? `?path=${encodeURIComponent(path)}` : ''}`);
      if (n !== latest.current) return; // a later click won
      setListing(l);
      if (edited.current < n) setTyped(l.path); // not over what the user typed meanwhile
      edited.current = 0;
      setProblem(null);
    } catch (e) {
      if (n !== latest.current) return;
      setProblem(`Cannot open ${path ?? 'the home folder'}: ${(e as Error).message || e}`);
    }
  };
  useEffect(() => {
    ref.current?.showModal();
    api<Home>('GET', '/api/v1/fs:home').then((h) => {
      setRecent((h.recent_roots ?? []).slice(0, 5));
      return browse(h.home);
    }).catch(() => browse());
  }, []);
  return (
    <dialog ref={ref} class="picker" aria-label="Choose a folder" onClose={props.onClose} onCancel={() => props.onClose()}>
      <div class="panel-head"><h2>New session in a folder</h2><span class="spacer" /><button class="ghost" aria-label="Close" onClick={() => ref.current?.close()}>×</button></div>
      <form class="path-row" onSubmit={(e) => { e.preventDefault(); edited.current = 0; void browse(typed.trim()); }}>
        <input aria-label="Folder path" value={typed} onInput={(e) => { edited.current = latest.current + 1; setTyped(e.currentTarget.value); }} autofocus />
        <button type="submit" class="ghost">Go</button>
      </form>
      {problem && <p class="notice error" role="alert">{problem}</p>}
      {recent.length > 0 && (
        <div class="recent"><span class="muted small-text">Recent:</span> {recent.map((r) => <button key={r} class="small ghost" onClick={() => browse(r)}>{r}</button>)}</div>
      )}
      <ul class="folders" aria-label="Folders">
        {listing?.parent && <li><button class="entry directory" onClick={() => browse(listing.parent!)}>..</button></li>}
        {(listing?.entries ?? []).filter((e) => e.is_dir).map((e) => (
          <li key={e.path}><button class="entry directory" onClick={() => browse(e.path)}>{e.name}</button></li>
        ))}
        {listing && listing.entries.length === 0 && <li class="muted">No sub-folders</li>}
      </ul>
      <div class="buttons">
        <button class="ghost" onClick={() => ref.current?.close()}>Cancel</button>
        <button disabled={!listing} onClick={() => { if (listing) { props.onPick(listing.path); ref.current?.close(); } }}>Start session here</button>
      </div>
    </dialog>
  );
}
