// The composer: the prompt text, `@` file mentions (fs:search of the session folder), skills (a list from
// GET /skills; `/name args` sends the prompt as that skill's activation), attachments (uploaded through
// POST /api/v1/files and sent as file / image parts), the pickers, Send and Abort.
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, getToken } from '../api.ts';
import type { Act } from '../chat/cards.tsx';
import { Icon } from '../icons.tsx';
import { Pickers } from './pickers.tsx';

type Upload = { id: string; name: string; media_type: string; size: number };
type Skill = { name: string; description: string; source: string; type?: string };
type Hit = { path: string; name: string; kind: string };
type Popup = { kind: 'mention'; start: number; items: Hit[]; at: number } | { kind: 'skill'; items: Skill[]; at: number };

/** `@word` right before the caret: the mention being typed. */
const mentionAt = (text: string, caret: number): { start: number; query: string } | null => {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]! } : null;
};

const userSkill = (s: Skill) => s.type !== 'model' && s.type !== 'model-only';

async function upload(file: File): Promise<Upload> {
  const form = new FormData();
  form.append('file', file, file.name);
  const token = getToken();
  const res = await fetch('/api/v1/files', { method: 'POST', headers: token ? { Authorization: `Bearer ${token}` } : {}, body: form });
  const env = await res.json().catch(() => ({ code: -1, msg: `HTTP ${res.status}` }));
  if (env.code !== 0) throw new ApiError(env.code ?? -1, env.msg ?? `HTTP ${res.status}`, res.status);
  return env.data;
}

const partOf = (u: Upload) => u.media_type.startsWith('image/') || u.media_type.startsWith('video/')
  ? { type: u.media_type.startsWith('image/') ? 'image' : 'video', source: { kind: 'file', file_id: u.id } }
  : { type: 'file', file_id: u.id, name: u.name, media_type: u.media_type, size: u.size };
/** A prompt as sent: its text and its attachments. */
const keyOf = (text: string, files: Upload[]) => `${text.trim()}\u0000${files.map((f) => f.id).join(',')}`;

/**
 * `modesKey` changes when the session's modes may have changed (a turn ended, meta.agent / meta.modes moved):
 * the pickers re-read them. `offline`: the daemon cannot be reached, sending waits. `onSent`: the daemon took a prompt.
 */
type ComposerProps = { sid: string; busy: boolean; offline: boolean; modesKey: string; act: Act; onAbort: () => void; onSent: () => void };

/**
 * Whether the focus stays where it is when another session opens: on a pending approval (which took it
 * first), or in a text field the user is typing in (the search box, when the session opened as they typed).
 */
function keepsFocus(active: Element | null, prompt: HTMLTextAreaElement | null): boolean {
  if (!active || active === prompt) return false;
  return active.closest('[aria-label="Approval"]') !== null || active.matches('input:not([type=checkbox]):not([type=radio]):not([type=button]), textarea, select, [contenteditable]:not([contenteditable=false])');
}

/** Re-rendered only when the session, its busy or offline state or its meta change (not on every chat render, e.g. a scroll). */
export const Composer = memo(ComposerView, (a, b) => a.sid === b.sid && a.busy === b.busy && a.offline === b.offline && a.modesKey === b.modesKey);

function ComposerView(props: ComposerProps) {
  // The latest callbacks, though the memo keeps an older render's props.
  const latest = useRef(props);
  latest.current = props;
  const act: Act = (fn, doing) => latest.current.act(fn, doing);
  const { sid } = props;
  const [text, setText] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const att = useAttachments(act);
  const pop = usePopup(sid, text, setText, area, act);
  const { files, uploading } = att;
  const { popup } = pop;
  const sender = useSend(sid, act);
  // Another session: its own skills, nothing attached; the prompt takes the focus.
  useEffect(() => {
    pop.setSkills(null);
    pop.setPopup(null);
    att.setFiles([]);
    if (!keepsFocus(document.activeElement, area.current)) area.current?.focus();
  }, [sid]);

  const send = () => sender.send(text, files, uploading > 0 || props.offline, pop, () => {
    // Cleared only if not edited meanwhile (what was typed since stays).
    setText((cur) => (cur === text ? '' : cur));
    att.setFiles((cur) => cur.filter((f) => !files.includes(f)));
    latest.current.onSent();
  });
  const onKeyDown = (e: KeyboardEvent) => {
    if (pop.onKey(e)) return;
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };

  const offline = props.offline;
  const inFlight = sender.flying.has(keyOf(text, files));
  return (
    <form class="composer" onSubmit={(e) => { e.preventDefault(); void send(); }}
      onDragOver={(e) => e.preventDefault()} onDrop={(e) => { e.preventDefault(); void att.attach(e.dataTransfer?.files ?? null); }}>
      {popup && <PopupList popup={popup} choose={pop.choose} />}
      <div class={`composer-box${offline ? ' offline' : ''}`}>
        {(files.length > 0 || uploading > 0) && <Attached files={files} uploading={uploading} remove={(id) => att.setFiles(files.filter((x) => x.id !== id))} />}
        <textarea ref={area} aria-label="Prompt" value={text} rows={2} data-sending={inFlight ? '' : undefined}
          placeholder={offline ? 'Offline: sending resumes once the daemon is back' : props.busy ? 'Queue a follow-up, or steer the running turn' : 'Ask anything (@ a file, / a skill)'}
          aria-autocomplete="list" aria-expanded={!!popup}
          onInput={(e) => { const v = e.currentTarget.value; setText(v); pop.lookup(v, e.currentTarget.selectionStart ?? v.length); }}
          onKeyDown={onKeyDown} onBlur={() => pop.setPopup(null)} />
        <div class="composer-bar">
          <input ref={att.fileInput} type="file" multiple hidden aria-label="Attachment file" onChange={(e) => void att.attach(e.currentTarget.files)} />
          <button type="button" class="icon" onClick={() => att.fileInput.current?.click()} aria-label="Attach files" title="Attach files"><Icon name="clip" /></button>
          <button type="button" class="ghost small" aria-pressed={popup?.kind === 'skill'} onClick={() => void pop.toggleSkills()}>Skills</button>
          <Pickers sid={sid} act={act} refreshKey={`${props.busy}|${props.modesKey}`} />
          <span class="spacer" />
          {props.busy && <button type="button" class="stop" onClick={() => latest.current.onAbort()} title="Stop the running turn"><Icon name="stop" size={14} />Abort</button>}
          <button type="submit" class="primary send" aria-label="Send" disabled={uploading > 0 || inFlight || offline}
            title={offline ? 'Offline: the daemon cannot be reached' : props.busy ? 'Queued behind the running turn (Enter)' : 'Send (Enter)'}><Icon name="up" /></button>
        </div>
      </div>
    </form>
  );
}

/**
 * Prompts on their way to the daemon (text and attachments as a key): the same one is not sent twice (a
 * double Enter), another one waits for those before it (`chain`), so a quick follow-up is neither dropped nor
 * overtaken.
 */
function useSend(sid: string, act: Act) {
  const [, setSending] = useState(0);
  const flying = useRef(new Set<string>());
  const chain = useRef<Promise<boolean>>(Promise.resolve(true));
  /**
   * Sends the prompt; the text and the attachments stay until the daemon accepted it (`done` clears them; a
   * failure says why in the banner and leaves them to send again). Nothing goes out while `held` (offline,
   * uploading), nor the same prompt twice while it is on its way; a different one sent meanwhile goes after it.
   */
  const send = async (text: string, files: Upload[], held: boolean, pop: ReturnType<typeof usePopup>, done: () => void) => {
    const v = text.trim();
    if (!v && !files.length) return;
    const key = keyOf(text, files);
    if (held || flying.current.has(key)) return;
    flying.current.add(key);
    const content: unknown[] = [];
    if (v) content.push({ type: 'text', text: v });
    content.push(...files.map(partOf));
    const body: Record<string, unknown> = { content };
    const slash = /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(v);
    if (slash) {
      const list = await pop.loadSkills().catch(() => [] as Skill[]);
      if (list.some((s) => s.name === slash[1])) body.skills = [{ name: slash[1], ...(slash[2]?.trim() ? { args: slash[2].trim() } : {}) }];
    }
    pop.setPopup(null);
    setSending((n) => n + 1);
    const sent = chain.current.then(() => act(() => api('POST', `/api/v1/sessions/${sid}/prompts`, body), 'send your message'));
    chain.current = sent;
    const ok = await sent;
    flying.current.delete(key);
    setSending((n) => n - 1);
    if (ok) done();
  };
  return { send, flying: flying.current };
}

/** Attachments: uploaded one by one as they are picked or dropped (POST /api/v1/files). */
function useAttachments(act: Act) {
  const [files, setFiles] = useState<Upload[]>([]);
  const [uploading, setUploading] = useState(0);
  const fileInput = useRef<HTMLInputElement>(null);
  const attach = async (list: FileList | null) => {
    if (!list?.length) return;
    const picked = [...list];
    setUploading((n) => n + picked.length);
    for (const f of picked) {
      await act(async () => {
        const u = await upload(f);
        setFiles((cur) => [...cur, u]);
      });
      setUploading((n) => n - 1);
    }
    if (fileInput.current) fileInput.current.value = '';
  };
  return { files, setFiles, uploading, fileInput, attach };
}

/** The popup under the prompt: `@` mentions (fs:search) and skills (GET /skills, the Skills button or `/` first). */
function usePopup(sid: string, text: string, setText: (t: string) => void, area: { current: HTMLTextAreaElement | null }, act: Act) {
  const [popup, setPopup] = useState<Popup | null>(null);
  const [skills, setSkills] = useState<Skill[] | null>(null);
  const searchSeq = useRef(0);
  const loadSkills = async (): Promise<Skill[]> => {
    if (skills) return skills;
    const d = await api<{ skills: Skill[] }>('GET', `/api/v1/sessions/${sid}/skills`);
    const list = d.skills.filter(userSkill).sort((a, b) => a.name.localeCompare(b.name));
    setSkills(list);
    return list;
  };
  /** The text changed: a mention or a skill being typed opens its popup; anything else closes it. */
  const lookup = (value: string, caret: number) => {
    const m = mentionAt(value, caret);
    if (m) {
      const seq = ++searchSeq.current;
      api<{ items: Hit[] }>('POST', `/api/v1/sessions/${sid}/fs:search`, { query: m.query, limit: 8 })
        .then((d) => { if (seq === searchSeq.current) setPopup(d.items.length ? { kind: 'mention', start: m.start, items: d.items, at: 0 } : null); })
        .catch(() => {});
      return;
    }
    searchSeq.current++;
    const s = /^\/([\w.:-]*)$/.exec(value.slice(0, caret));
    if (s) {
      void loadSkills().then((list) => {
        const items = list.filter((k) => k.name.toLowerCase().includes(s[1]!.toLowerCase()));
        setPopup(items.length ? { kind: 'skill', items, at: 0 } : null);
      }).catch(() => {});
      return;
    }
    setPopup(null);
  };
  const insert = (next: string, caret: number) => {
    setText(next);
    const el = area.current;
    if (el) requestAnimationFrame(() => { el.focus(); el.selectionStart = el.selectionEnd = caret; });
  };
  const choose = (i: number) => {
    const p = popup;
    const el = area.current;
    if (!p || !el) return;
    if (p.kind === 'mention') {
      const hit = p.items[i]!;
      const caret = el.selectionStart ?? text.length;
      const mention = `@${hit.path}${hit.kind === 'directory' ? '/' : ''} `;
      insert(text.slice(0, p.start) + mention + text.slice(caret), p.start + mention.length);
    } else {
      const next = `/${p.items[i]!.name} ${text.replace(/^\/[\w.:-]*\s?/, '')}`;
      insert(next, next.length);
    }
    setPopup(null);
  };
  const toggleSkills = () => act(async () => {
    if (popup?.kind === 'skill') return setPopup(null);
    const list = await loadSkills();
    setPopup({ kind: 'skill', items: list, at: 0 });
  });
  /** Arrows, Enter / Tab and Escape while the popup is open; true when the key was the popup's. */
  const onKey = (e: KeyboardEvent): boolean => {
    if (!popup) return false;
    const n = popup.items.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') setPopup({ ...popup, at: (popup.at + (e.key === 'ArrowDown' ? 1 : n - 1)) % n } as Popup);
    else if (e.key === 'Enter' || e.key === 'Tab') choose(popup.at);
    else if (e.key === 'Escape') setPopup(null);
    else return false;
    e.preventDefault();
    return true;
  };
  return { popup, setPopup, setSkills, loadSkills, lookup, choose, toggleSkills, onKey };
}

function PopupList(props: { popup: Popup; choose: (i: number) => void }) {
  const { popup, choose } = props;
  return (
    <ul class="popup" role="listbox" aria-label={popup.kind === 'mention' ? 'Files' : 'Skills'}>
      {popup.kind === 'mention'
        ? popup.items.map((h, i) => (
            <li key={h.path} role="option" aria-selected={i === popup.at} class={i === popup.at ? 'sel' : ''} onMouseDown={(e) => { e.preventDefault(); choose(i); }}>
              <span class="p-name">{h.name}</span> <span class="muted">{h.path}</span>
            </li>))
        : popup.items.map((s, i) => (
            <li key={s.name} role="option" aria-selected={i === popup.at} class={i === popup.at ? 'sel' : ''} onMouseDown={(e) => { e.preventDefault(); choose(i); }}>
              <span class="p-name">/{s.name}</span> <span class="muted">{s.description}</span>
            </li>))}
      {popup.kind === 'skill' && popup.items.length === 0 && <li class="muted">No skills</li>}
    </ul>
  );
}

function Attached(props: { files: Upload[]; uploading: number; remove: (id: string) => void }) {
  return (
    <div class="attached" aria-label="Attachments">
      {props.files.map((f) => (
        <span key={f.id} class="chip">{f.name}
          <button type="button" class="ghost" aria-label={`Remove ${f.name}`} onClick={() => props.remove(f.id)}><Icon name="x" size={12} /></button>
        </span>
      ))}
      {props.uploading > 0 && <span class="chip muted">uploading…</span>}
    </div>
  );
}
