import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { Icon } from './icons.tsx';

type Entry = { path: string; name: string; kind: 'file' | 'directory' | 'symlink'; git_status?: string; is_binary?: boolean };

const fs = (sid: string, action: string, body: unknown) => api('POST', `/api/v1/sessions/${sid}/fs:${action}`, body);

/** The session's files (fs:list with git status, one level per click) and a preview of one (fs:read). */
export function FilePanel(props: { sid: string; onError: (e: unknown) => void }) {
  const { sid } = props;
  const [children, setChildren] = useState<Record<string, Entry[]>>({});
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [preview, setPreview] = useState<{ path: string; content: string; binary: boolean } | null>(null);

  const list = async (path: string) => {
    const data = await fs(sid, 'list', { path, include_git_status: true, limit: 500 });
    setChildren((c) => ({ ...c, [path]: data.items }));
  };
  useEffect(() => {
    setChildren({});
    setOpen(new Set());
    setPreview(null);
    list('.').catch(props.onError);
  }, [sid]);

  const toggle = (e: Entry) => {
    const next = new Set(open);
    if (next.has(e.path)) next.delete(e.path);
    else {
      next.add(e.path);
      if (!children[e.path]) list(e.path).catch(props.onError);
    }
    setOpen(next);
  };
  const read = async (e: Entry) => {
    const data = await fs(sid, 'read', { path: e.path, length: 262144 });
    setPreview({ path: data.path ?? e.path, content: data.is_binary ? '' : data.content, binary: !!data.is_binary });
  };

  const tree = (path: string, depth: number) => (children[path] ?? []).map((e) => (
    <li key={e.path}>
      <button class={`entry ${e.kind}`} style={{ paddingLeft: `${depth * 12 + 4}px` }} onClick={() => (e.kind === 'directory' ? toggle(e) : read(e).catch(props.onError))}>
        <span class="caret" aria-hidden="true">{e.kind === 'directory' ? (open.has(e.path) ? '▾' : '▸') : ''}</span>{e.name}
        {e.git_status && e.git_status !== 'clean' && <span class={`git ${e.git_status}`} title={e.git_status}>{e.git_status[0]!.toUpperCase()}</span>}
      </button>
      {e.kind === 'directory' && open.has(e.path) && <ul>{tree(e.path, depth + 1)}</ul>}
    </li>
  ));

  return (
    <aside class="files" aria-label="Files">
      <div class="files-head"><strong>Files</strong> <button class="icon" onClick={() => list('.').catch(props.onError)} aria-label="Refresh files" title="Refresh"><Icon name="refresh" size={15} /></button></div>
      <ul class="tree">{tree('.', 0)}</ul>
      {preview && (
        <section class="preview" aria-label="File preview">
          <div class="files-head"><code>{preview.path}</code> <button class="icon" onClick={() => setPreview(null)} aria-label="Close preview"><Icon name="x" /></button></div>
          {preview.binary ? <p class="muted">Binary file</p> : <pre>{preview.content}</pre>}
        </section>
      )}
    </aside>
  );
}
