// Approval and question cards (spec core "Approvals and questions"): every decision the API takes.
// Approval: approved (once, or scope "session"), rejected, cancelled, with optional feedback; a request
// with `options` (a plan review) offers one button per option (`selected_label`).
// Question: single / multi choice, free text ("other", "multi_with_other"), skipped, a note; or dismiss.
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Interaction } from '../transcript.ts';
import { show } from './tool.tsx';

export type Act = (fn: () => Promise<unknown>) => Promise<void>;

export function ApprovalCard(props: { i: Interaction; sid: string; act: Act }) {
  const { i, sid, act } = props;
  const r = i.request ?? {};
  const [feedback, setFeedback] = useState('');
  const decide = (decision: 'approved' | 'rejected' | 'cancelled', extra: { scope?: 'session'; selected_label?: string } = {}) =>
    act(() => api('POST', `/api/v1/sessions/${sid}/approvals/${i.interactionId}`, { decision, ...extra, ...(feedback.trim() ? { feedback: feedback.trim() } : {}) }));
  const options: { label: string; description?: string }[] = Array.isArray(r.options) ? r.options : [];
  // `display` is a block (a Bash `command`, a `diff`, ...; spec/clients.md B4): its command, else the request's text.
  const display = r.display?.command ?? r.tool_input_display ?? r.display;
  return (
    <div class="card approval" role="group" aria-label="Approval">
      <div><strong>{r.toolName ?? 'Tool'}</strong> wants to {r.action ?? 'run'}</div>
      {display !== undefined && display !== null && <pre class="approval-display">{show(display)}</pre>}
      <input class="feedback" aria-label="Feedback for the agent" placeholder="Feedback (optional)" value={feedback} onInput={(e) => setFeedback(e.currentTarget.value)} />
      <div class="buttons">
        {options.length
          ? options.map((o) => <button key={o.label} title={o.description} onClick={() => decide('approved', { selected_label: o.label })}>{o.label}</button>)
          : <>
              <button onClick={() => decide('approved')}>Approve</button>
              <button onClick={() => decide('approved', { scope: 'session' })} title="Approve, and approve the same call for the rest of this session">Approve for session</button>
            </>}
        <button class="danger" onClick={() => decide('rejected')}>Reject</button>
        <button class="ghost" onClick={() => decide('cancelled')} title="Cancel the tool call">Cancel</button>
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
        <button onClick={submit}>Answer</button>
        <button class="ghost" onClick={() => act(() => api('POST', `/api/v1/sessions/${sid}/questions/${i.interactionId}:dismiss`))}>Dismiss</button>
      </div>
    </div>
  );
}
