// One turn of the chat: the prompt (with its attachments), streamed text and thinking, tool blocks,
// notices, the failed turn's error, and the files the turn changed (file-history routes).
import { memo } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Markdown } from '../markdown.tsx';
import type { Turn } from '../transcript.ts';
import { lineDiff } from './diff.ts';
import { DiffView, ToolBlock } from './tool.tsx';

const WRITERS = new Set(['Write', 'Edit']);

/** Re-renders only when the turn changed (`rev`, bumped by applyOps) or another turn object took its place. */
export const TurnView = memo(function TurnView(props: { turn: Turn; rev: number; sid: string; attachments: Map<string, any> }) {
  const { turn, sid } = props;
  const wrote = turn.state !== 'running' && turn.steps.some((s) => s.frames.some((f) => f.kind === 'tool' && WRITERS.has(f.name) && f.state === 'done'));
  const files = (turn.attachmentIds ?? []).map((id: string) => props.attachments.get(id)).filter(Boolean);
  // The frame still streaming: the last one of a running turn. Thinking is open while it streams, folded
  // once anything follows it (a reader's own open / close of it is left alone: `open` changes only then).
  const streaming = turn.state === 'running' ? turn.steps.at(-1)?.frames.at(-1) : undefined;
  return (
    <article class={`turn ${turn.state}`} data-turn={turn.turnId} data-turn-id={turn.turn_id}>
      {turn.prompt !== undefined && turn.prompt !== '' && <div class="bubble user">{turn.prompt}</div>}
      {files.length > 0 && <div class="attached">{files.map((a: any) => <span key={a.attachmentId} class="chip">{a.name ?? a.mediaType}</span>)}</div>}
      {turn.steps.map((s) => s.frames.map((f) => {
        if (f.kind === 'text') return f.role === 'user' ? <div key={f.frameId} class="bubble user steered">{f.text}</div> : <div key={f.frameId} class="bubble assistant"><Markdown text={f.text ?? ''} /></div>;
        if (f.kind === 'thinking') return <details key={f.frameId} class="thinking" open={f === streaming}><summary>{f === streaming ? 'Thinking…' : 'Thinking'}</summary><pre>{f.text}</pre></details>;
        if (f.kind === 'tool') return <ToolBlock key={f.frameId} f={f} />;
        if (f.kind === 'notice') return <div key={f.frameId} class={`notice ${f.level}`}>{f.message}</div>;
        return null;
      }))}
      {turn.state === 'running' && <div class="spinner" aria-label="working">…</div>}
      {turn.state === 'failed' && <div class="notice error" role="alert">Turn failed{turn.error ? `: ${turn.error}` : ''}</div>}
      {turn.state === 'cancelled' && <div class="notice info">Cancelled</div>}
      {wrote && <FileChanges sid={sid} turnKey={turn.turn_id ?? turn.turnId} ordinal={turn.ordinal} rev={props.rev} />}
    </article>
  );
}, (a, b) => a.turn === b.turn && a.rev === b.rev && a.sid === b.sid && a.attachments === b.attachments);

type Change = { path: string; status: 'added' | 'modified' | 'deleted'; additions: number; deletions: number; oversize?: true };

/**
 * A finished turn's recorded changes do not change: kept per session and turn (the newest RECORDED_KEEP), so
 * a turn windowed out and back in, a session opened again or a transcript reloaded asks no more.
 */
const recorded = new Map<string, Change[]>();
const RECORDED_KEEP = 500;

/**
 * The files a turn's Write and Edit calls changed: status and line counts; a click shows the turn's diff of
 * one. Asked again on a change of the turn (`rev`) only until the daemon says they are recorded.
 */
function FileChanges(props: { sid: string; turnKey: string; ordinal: number; rev: number }) {
  const { sid, ordinal } = props;
  const key = `${sid}/${props.turnKey}`;
  const [changes, setChanges] = useState<Change[] | null>(() => recorded.get(key) ?? null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<{ path: string; before: string; after: string } | null>(null);
  useEffect(() => {
    const known = recorded.get(key);
    if (known) return void setChanges(known);
    let live = true;
    api('GET', `/api/v1/sessions/${sid}/file-history/changes?turn_id=${ordinal}`)
      .then((d) => {
        if (d.recorded) {
          recorded.delete(key);
          recorded.set(key, d.changes ?? []);
          if (recorded.size > RECORDED_KEEP) recorded.delete(recorded.keys().next().value!);
        }
        if (live) setChanges(d.recorded ? d.changes ?? [] : []);
      })
      .catch((e) => { if (live) setError(String(e.message ?? e)); });
    return () => { live = false; };
  }, [key, ordinal, props.rev]);
  const show = async (c: Change) => {
    if (open?.path === c.path) return setOpen(null);
    const q = (phase: string) => api('GET', `/api/v1/sessions/${sid}/file-history/content?turn_id=${ordinal}&path=${encodeURIComponent(c.path)}&phase=${phase}`);
    try {
      const [s, e] = await Promise.all([q('start'), q('end')]);
      setOpen({ path: c.path, before: s.content?.content ?? '', after: e.content?.content ?? '' });
    } catch (err) {
      setError(String((err as Error).message ?? err));
    }
  };
  if (error) return <div class="notice error" role="alert">File changes: {error}</div>;
  if (!changes?.length) return null;
  return (
    <section class="file-changes" aria-label="Files changed">
      <div class="fc-head">{changes.length} file{changes.length > 1 ? 's' : ''} changed</div>
      <ul>
        {changes.map((c) => (
          <li key={c.path}>
            <button class="ghost fc-path" aria-expanded={open?.path === c.path} onClick={() => void show(c)} disabled={!!c.oversize}>
              <span class={`fc-status ${c.status}`}>{c.status[0]!.toUpperCase()}</span> {c.path}
              {!c.oversize && <span class="diffstat"> <span class="plus">+{c.additions}</span> <span class="minus">−{c.deletions}</span></span>}
            </button>
            {open?.path === c.path && <DiffView lines={lineDiff(open.before, open.after)} label={`changes to ${c.path}`} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function MarkerView(props: { m: any }) {
  const { m } = props;
  if (m.marker === 'notice') return <div class={`notice ${m.payload?.level ?? 'info'}`} role={m.payload?.level === 'error' ? 'alert' : undefined}>{m.payload?.message}</div>;
  if (m.marker === 'interruption') return <div class="notice info">Interrupted</div>;
  if (m.marker === 'compaction') return <div class="notice info">Compaction {m.payload?.phase}</div>;
  if (m.marker === 'skill') return <div class="notice info">Skill {m.payload?.origin?.skillName}</div>;
  return null;
}
