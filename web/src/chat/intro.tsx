// A new session's empty log: where it runs (the folder and its git branch) and on which model, and what to
// type. The prompt has the focus (the composer takes it when a session opens).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Icon } from '../icons.tsx';

export function Intro(props: { sid: string; cwd?: string; branch: string | null | undefined }) {
  const [model, setModel] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api<{ model?: string }>('GET', `/api/v1/sessions/${props.sid}/status`)
      .then((s) => { if (live) setModel(s.model ?? 'the default model'); })
      .catch((e) => console.warn('session status not read', e));
    return () => { live = false; };
  }, [props.sid]);
  return (
    <section class="intro" aria-label="New session">
      <h2>New session</h2>
      <dl>
        <dt><Icon name="folder" size={14} />Folder</dt><dd>{props.cwd || '—'}</dd>
        <dt><Icon name="branch" size={14} />Branch</dt><dd>{props.branch === undefined ? '—' : props.branch ?? 'none (not a git repository)'}</dd>
        <dt><Icon name="cpu" size={14} />Model</dt><dd>{model ?? '…'}</dd>
      </dl>
      <p>Describe what you want done. Type <kbd>@</kbd> to mention a file, <kbd>/</kbd> for a skill; Enter sends.</p>
    </section>
  );
}
