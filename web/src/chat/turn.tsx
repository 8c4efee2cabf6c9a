// One turn of the chat: the prompt (with its attachments), streamed text and thinking, tool blocks,
// notices, the failed turn's error, and the files the turn changed (file-history routes).
import { memo } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { CopyButton } from '../copy.tsx';
import { Markdown } from '../markdown.tsx';
import { when } from '../sidebar/titles.ts';
import type { Attachment, Frame, Interaction, Marker, Turn } from '../transcript.ts';
import { lineDiff } from './diff.ts';
import { DiffView, ToolBlock, type ApprovalState } from './tool.tsx';

const WRITERS = new Set(['Write', 'Edit']);

/** The approval state of a tool call, when it had one (a pending one makes the row say "waiting for approval"). */
function approvalOf(f: Frame, interactions: Map<string, Interaction>): ApprovalState {
  const byId = typeof f.approvalId === 'string' ? interactions.get(f.approvalId) : undefined;
  const it = byId ?? [...interactions.values()].find((i) => i.interactionKind === 'approval' && i.toolCallId === f.toolCallId);
  return it?.state as ApprovalState;
}

/** A running turn's indicator: a moving dot and how long it has run (its own timer: the turn is not re-rendered). */
function Working(props: { since?: string; waiting: boolean }) {
  const start = props.since ? Date.parse(props.since) : NaN;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const s = Number.isFinite(start) ? Math.max(0, Math.floor((now - start) / 1000)) : null;
  const elapsed = s === null ? '' : s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return (
    <div class={`working${props.waiting ? ' waiting' : ''}`} role="status" aria-label="working">
      <span class="pulse" aria-hidden="true" />
      <span>{props.waiting ? 'Waiting for your approval' : 'Working'}{elapsed && ` · ${elapsed}`}</span>
    </div>
  );
}

/**
 * Re-renders only when the turn changed (`rev`, bumped by applyOps), another turn object took its place, or
 * an interaction changed (`irev`: a tool row says when it waits for approval, and whether it was rejected).
 */
export const TurnView = memo(function TurnView(props: { turn: Turn; rev: number; irev: number; sid: string; attachments: Map<string, Attachment>; interactions: Map<string, Interaction> }) {
  const { turn, sid } = props;
  const wrote = turn.state !== 'running' && turn.steps.some((s) => s.frames.some((f) => f.kind === 'tool' && WRITERS.has(f.name) && f.state === 'done'));
  const files = (turn.attachmentIds ?? []).map((id) => props.attachments.get(id)).filter((a): a is Attachment => !!a);
  // The frame still streaming: the last one of a running turn. Thinking is open while it streams, folded
  // once anything follows it (a reader's own open / close of it is left alone: `open` changes only then).
  const streaming = turn.state === 'running' ? turn.steps.at(-1)?.frames.at(-1) : undefined;
  const answer = turn.state !== 'running' ? turn.steps.flatMap((s) => s.frames).filter((f) => f.kind === 'text' && f.role !== 'user').map((f) => f.text ?? '').join('\n\n') : '';
  let waiting = false;
  return (
    <article class={`turn ${turn.state}`} data-turn={turn.turnId} data-turn-id={turn.turn_id}>
      {turn.prompt !== undefined && turn.prompt !== '' && <div class="bubble user" title={when(turn.startedAt)}>{turn.prompt}</div>}
      {files.length > 0 && <div class="attached">{files.map((a) => <span key={a.attachmentId} class="chip">{a.name ?? a.mediaType}</span>)}</div>}
      {turn.steps.map((s) => s.frames.map((f) => {
        if (f.kind === 'text') return f.role === 'user' ? <div key={f.frameId} class="bubble user steered">{f.text}</div> : <div key={f.frameId} class="bubble assistant"><Markdown text={f.text ?? ''} /></div>;
        if (f.kind === 'thinking') return <details key={f.frameId} class="thinking" open={f === streaming}><summary>{f === streaming ? 'Thinking…' : 'Thinking'}</summary><pre>{f.text}</pre></details>;
        if (f.kind === 'tool') {
          const approval = approvalOf(f, props.interactions);
          if (approval === 'pending' && f.state === 'running') waiting = true;
          return <ToolBlock key={f.frameId} f={f} approval={approval} />;
        }
        if (f.kind === 'notice') return <div key={f.frameId} class={`notice ${f.level}`}>{f.message}</div>;
        return null;
      }))}
      {turn.state === 'running' && <Working since={turn.startedAt} waiting={waiting} />}
      {turn.state === 'failed' && <div class="notice error" role="alert">The turn failed{turn.error ? `: ${turn.error}` : '.'}</div>}
      {turn.state === 'cancelled' && <div class="notice quiet">Stopped.</div>}
      {wrote && <FileChanges sid={sid} turnKey={turn.turn_id ?? turn.turnId} ordinal={turn.ordinal} rev={props.rev} />}
      {answer && (
        <div class="msg-tools">
          <CopyButton text={answer} label="Copy the answer" icon={false} />
          {turn.endedAt && <span title={when(turn.endedAt)}>{when(turn.startedAt ?? turn.endedAt)}</span>}
        </div>
      )}
    </article>
  );
}, (a, b) => a.turn === b.turn && a.rev === b.rev && a.irev === b.irev && a.sid === b.sid && a.attachments === b.attachments);

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

export function MarkerView(props: { m: Marker }) {
  const { m } = props;
  if (m.marker === 'notice') return <div class={`notice ${m.payload?.level ?? 'info'}`} role={m.payload?.level === 'error' ? 'alert' : undefined}>{m.payload?.message}</div>;
  // A cancelled turn says "Stopped." itself: one notice for an abort, not two.
  if (m.marker === 'interruption') return m.payload?.reason === 'cancelled' ? null : <div class="notice quiet">Interrupted.</div>;
  if (m.marker === 'compaction') return <div class="notice info">Compaction {m.payload?.phase}</div>;
  if (m.marker === 'skill') return <div class="notice info">Skill {m.payload?.origin?.skillName}</div>;
  return null;
}
