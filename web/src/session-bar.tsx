// The bar over the chat: the session's name (rename in place), its git branch, its state, and the actions
// (side panel, rename, archive / restore, delete). Archiving stops the session's terminals, so it asks first
// when one is running.
import { useState } from 'preact/hooks';
import { api } from './api.ts';
import { Icon } from './icons.tsx';
import type { SessionRow } from './sidebar/sessions.ts';
import { sessionName } from './sidebar/titles.ts';

const STATUS: Record<string, string> = { running: 'working', approval: 'needs approval', question: 'has a question', failed: 'failed' };

/** How many of the session's terminals run (0 when that cannot be read: the archive call then says what is wrong). */
async function runningTerminals(sid: string): Promise<number> {
  try {
    const d = await api<{ items: Array<{ status: string }> }>('GET', `/api/v1/sessions/${sid}/terminals`);
    return d.items.filter((x) => x.status === 'running').length;
  } catch {
    return 0;
  }
}

export function SessionBar(props: {
  sid: string; row: SessionRow | undefined; branch: string | null | undefined; panel: boolean; togglePanel: () => void;
  rename: (title: string) => void; archive: (archived: boolean) => void; remove: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const { row } = props;
  const name = sessionName(row);
  const branch = props.branch;
  const status = row?.activity.status ?? 'idle';
  const archive = async () => {
    if (!row) return;
    if (!row.meta.archived) {
      const n = await runningTerminals(props.sid);
      if (n > 0 && !confirm(`Archiving stops this session's ${n === 1 ? 'terminal' : `${n} terminals`} (the shell${n === 1 ? '' : 's'} and anything running in ${n === 1 ? 'it' : 'them'}). Archive it?`)) return;
    }
    props.archive(!row.meta.archived);
  };
  return (
    <>
      {editing
        ? <form class="rename" onSubmit={(e) => { e.preventDefault(); if (title.trim()) props.rename(title.trim()); setEditing(false); }}>
            <input aria-label="Session title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} autofocus
              onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); setEditing(false); } }} />
            <button type="submit" class="primary">Save</button>
            <button type="button" class="ghost" onClick={() => setEditing(false)}>Cancel</button>
          </form>
        : <h2 class="s-name" title={name}>{name}</h2>}
      {!editing && branch && <span class="chip branch" title={`git branch ${branch}`}><Icon name="branch" /><span>{branch}</span></span>}
      {!editing && row?.meta.archived && <span class="badge archived">archived</span>}
      {!editing && status !== 'idle' && <span class={`badge ${status}`}>{STATUS[status] ?? status}</span>}
      <span class="spacer" />
      <button class="ghost" aria-label="Panels" aria-pressed={props.panel} onClick={props.togglePanel} title="Files, changes, terminal, tasks, MCP (Ctrl+Shift+E, Ctrl+`)">
        <Icon name="panel" /><span class="label">Panels</span>
      </button>
      {!editing && <button class="icon" aria-label="Rename" title="Rename" onClick={() => { setTitle(row?.meta.title || name); setEditing(true); }}><Icon name="pencil" /></button>}
      {row && <button class="icon" aria-label={row.meta.archived ? 'Restore' : 'Archive'} title={row.meta.archived ? 'Restore from the archive' : 'Archive'} onClick={() => void archive()}><Icon name="archive" /></button>}
      <button class="icon" aria-label="Delete" title="Delete for good" onClick={() => { if (confirm('Delete this session for good?')) props.remove(); }}><Icon name="trash" /></button>
    </>
  );
}
