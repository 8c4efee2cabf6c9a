// Approval and question cards (spec core "Approvals and questions"): every decision the API takes.
// Approval: approved (once, or scope "session"), rejected, cancelled, with optional feedback; a request
// with `options` (a plan review) offers one button per option (`selected_label`).
// Question: single / multi choice, free text ("other", "multi_with_other"), skipped, a note; or dismiss.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Interaction } from '../transcript.ts';
import { lineDiff, parseUnified } from './diff.ts';
import { readDisplay, type Shown } from './display.ts';
import { DiffView } from './tool.tsx';

/** Runs `fn`; a failure shows the error banner saying what was being done (`doing`, after "Couldn't"). True on success. */
export type Act = (fn: () => Promise<unknown>, doing?: string) => Promise<boolean>;

/** The action's words and its reason: "Run a command (manual mode asks …)" → "Run a command" and the reason. */
function split(action: string): { what: string; why?: string } {
  const m = /^(.*?)\s*\((.+)\)\s*$/.exec(action);
  return m ? { what: m[1]!, why: m[2]! } : { what: action };
}

/** The daemon's reason for asking (src/permissions/policy.ts), as a sentence. */
function reason(why: string): string {
  if (why === 'manual mode') return 'Asked because the permission mode is "Ask before changes".';
  return `Asked because ${why}.`;
}

/** What the call would do, once: the command (and where), the file, the diff, the list, or the text. */
function Requested(props: { d: Shown | null }) {
  const { d } = props;
  if (!d) return null;
  switch (d.kind) {
    case 'command':
      return <>{d.description && <div class="muted small-text">{d.description}</div>}<pre class="approval-display">{`$ ${d.command}`}</pre>{d.cwd && <div class="muted small-text">in {d.cwd}</div>}</>;
    case 'file_io':
      return <pre class="approval-display">{`${d.operation} ${d.path}`}</pre>;
    case 'diff':
      return <>{d.path && <code>{d.path}</code>}{d.diff ? <DiffView lines={parseUnified(d.diff)} /> : d.oldText !== undefined && d.newText !== undefined ? <DiffView lines={lineDiff(d.oldText, d.newText)} /> : null}</>;
    case 'todo_list':
      return <pre class="approval-display">{d.items.map((i) => `- ${i.title}`).join('\n')}</pre>;
    case 'text':
      return <pre class="approval-display">{d.text}</pre>;
  }
}

/**
 * The pending approval, docked by the composer: what the tool asks for in words and what it would run,
 * shown once; Enter approves, Escape rejects, Ctrl+Enter approves for the session (a plan review: Enter
 * takes its first option). It takes the focus when it comes, unless a prompt is being typed.
 */
export function ApprovalCard(props: { i: Interaction; sid: string; act: Act; more?: number }) {
  const { i, sid, act } = props;
  const r = i.request ?? {};
  const [feedback, setFeedback] = useState('');
  const [sent, setSent] = useState(false);
  const card = useRef<HTMLDivElement>(null);
  const decide = async (decision: 'approved' | 'rejected' | 'cancelled', extra: { scope?: 'session'; selected_label?: string } = {}) => {
    if (sent) return;
    setSent(true);
    const ok = await act(() => api('POST', `/api/v1/sessions/${sid}/approvals/${i.interactionId}`, { decision, ...extra, ...(feedback.trim() ? { feedback: feedback.trim() } : {}) }), decision === 'approved' ? 'approve the call' : 'answer the approval');
    if (!ok) setSent(false);
    else (document.querySelector('textarea[aria-label="Prompt"]') as HTMLTextAreaElement | null)?.focus();
  };
  const options: { label: string; description?: string }[] = Array.isArray(r.options) ? r.options : [];
  const read = readDisplay(r.display ?? r.tool_input_display);
  // A plain-text display of a command (the string form) is still a command.
  const shown: Shown | null = read?.kind === 'text' && r.toolName === 'Bash' ? { kind: 'command', command: read.text } : read;
  const { what, why } = split(typeof r.action === 'string' ? r.action : 'Run a tool');
  useEffect(() => {
    // Not away from a prompt being typed; a prompt still on its way (kept in the field until accepted) is not.
    const typing = document.activeElement as HTMLTextAreaElement | null;
    if (typing?.getAttribute('aria-label') === 'Prompt' && typing.value.trim() && !typing.hasAttribute('data-sending')) return;
    card.current?.focus();
  }, [i.interactionId]);
  const onKey = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (e.key === 'Escape') {
      e.preventDefault();
      void decide('rejected');
    } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void (options.length ? decide('approved', { selected_label: options[0]!.label }) : decide('approved', { scope: 'session' }));
    } else if (e.key === 'Enter' && !e.shiftKey && (target === card.current || target.tagName === 'INPUT')) {
      e.preventDefault();
      void (options.length ? decide('approved', { selected_label: options[0]!.label }) : decide('approved'));
    }
  };
  return (
    <div class="card approval" role="group" aria-label="Approval" tabIndex={-1} ref={card} onKeyDown={onKey}>
      <div class="ask"><span class="what">{what}</span><span class="who"><strong>{r.toolName ?? 'Tool'}</strong>{props.more ? ` · ${props.more} more waiting` : ''}</span></div>
      {why && <div class="muted small-text">{reason(why)}</div>}
      <Requested d={shown} />
      <input class="feedback" aria-label="Feedback for the agent" placeholder="Feedback for the agent (optional)" value={feedback} onInput={(e) => setFeedback(e.currentTarget.value)} />
      {/* Laid out right to left: the main action first in the tab order, rightmost on screen. */}
      <div class="buttons reverse">
        {options.length
          ? options.map((o, k) => <button key={o.label} class={k === 0 ? 'primary' : ''} disabled={sent} title={o.description} onClick={() => decide('approved', { selected_label: o.label })}>{o.label}</button>)
          : <>
              <button class="primary" disabled={sent} onClick={() => decide('approved')}>Approve</button>
              <button disabled={sent} onClick={() => decide('approved', { scope: 'session' })} title="Approve, and approve the same call for the rest of this session">Approve for session</button>
            </>}
        <button class="danger" disabled={sent} onClick={() => decide('rejected')}>Reject</button>
        <button class="ghost" disabled={sent} onClick={() => decide('cancelled')} title="Cancel the tool call">Cancel</button>
        <span class="keys"><span><kbd>Enter</kbd> {options.length ? options[0]!.label.toLowerCase() : 'approve'}</span><span><kbd>Esc</kbd> reject</span>{!options.length && <span><kbd>Ctrl</kbd>+<kbd>Enter</kbd> for the session</span>}</span>
      </div>
    </div>
  );
}

type Q = { id: string; question: string; header?: string; options?: { id: string; label: string; description?: string }[]; multi_select?: boolean; allow_other?: boolean };

export function QuestionCard(props: { i: Interaction; sid: string; act: Act }) {
  const { i, sid, act } = props;
  const questions: Q[] = i.request?.questions ?? [];
  const [chosen, setChosen] = useState<Record<string, string[]>>({});
  const [other, setOther] = useState<Record<string, string>>({});
  const [note, setNote] = useState('');
  const answerOf = (q: Q) => {
    const ids = chosen[q.id] ?? [];
    const text = (other[q.id] ?? '').trim();
    if (q.multi_select) {
      if (ids.length && text) return { kind: 'multi_with_other', option_ids: ids, other_text: text };
      if (ids.length) return { kind: 'multi', option_ids: ids };
    } else if (ids.length) return { kind: 'single', option_id: ids[0] };
    if (text) return { kind: 'other', text };
    return { kind: 'skipped' };
  };
  const submit = () => act(() => api('POST', `/api/v1/sessions/${sid}/questions/${i.interactionId}`, {
    method: 'click',
    answers: Object.fromEntries(questions.map((q) => [q.id, answerOf(q)])),
    ...(note.trim() ? { note: note.trim() } : {}),
  }));
  return (
    <div class="card question" role="group" aria-label="Question">
      {questions.map((q) => (
        <fieldset key={q.id}>
          <legend>{q.header ? `${q.header}: ` : ''}{q.question}</legend>
          {(q.options ?? []).map((o) => (
            <label key={o.id} title={o.description}>
              <input type={q.multi_select ? 'checkbox' : 'radio'} name={`${i.interactionId}-${q.id}`} checked={(chosen[q.id] ?? []).includes(o.id)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  const cur = chosen[q.id] ?? [];
                  setChosen({ ...chosen, [q.id]: q.multi_select ? (on ? [...cur, o.id] : cur.filter((x) => x !== o.id)) : [o.id] });
                  if (!q.multi_select) setOther({ ...other, [q.id]: '' });
                }} /> {o.label}{o.description && <span class="muted"> — {o.description}</span>}
            </label>
          ))}
          {q.allow_other !== false && (
            <input class="other" aria-label={`Other answer: ${q.question}`} placeholder="Other (type an answer)" value={other[q.id] ?? ''}
              onInput={(e) => {
                const v = e.currentTarget.value;
                setOther({ ...other, [q.id]: v });
                if (!q.multi_select && v) setChosen({ ...chosen, [q.id]: [] });
              }} />
          )}
        </fieldset>
      ))}
      <input class="feedback" aria-label="Note for the agent" placeholder="Note (optional)" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      <div class="buttons">
        <button class="ghost" onClick={() => act(() => api('POST', `/api/v1/sessions/${sid}/questions/${i.interactionId}:dismiss`), 'dismiss the question')}>Dismiss</button>
        <button class="primary" onClick={() => void submit()}>Answer</button>
      </div>
    </div>
  );
}
