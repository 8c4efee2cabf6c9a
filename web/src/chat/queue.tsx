// The prompts waiting behind the running turn: steer one (or all) into it, or remove one.
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Prompt } from '../transcript.ts';
import type { Act } from './cards.tsx';

/** A queued prompt's text: its text parts, attachments by name. */
type Part = { type?: string; text?: string; name?: string } | null;
const promptText = (p: Prompt): string => Array.isArray(p.content)
  ? (p.content as Part[]).map((c) => c?.type === 'text' ? c.text : c?.name ? `[${c.name}]` : '').filter(Boolean).join(' ')
  : '';

/**
 * Prompts sent while a turn runs wait in the queue: steer one (or all) into the running turn, or remove it.
 * A steered prompt stays listed ("steering…") until the turn takes it in at its next step (prompt.steered).
 */
export function Queue(props: { sid: string; queued: Prompt[]; act: Act }) {
  const { sid, queued, act } = props;
  const [steering, setSteering] = useState<Set<string>>(new Set());
  const steer = (ids: string[], path: string, body?: unknown) => act(async () => {
    await api('POST', path, body);
    setSteering((cur) => new Set([...cur, ...ids]));
  }, 'steer the prompt into the running turn');
  const waiting = queued.filter((p) => !steering.has(p.promptId));
  return (
    <section class="queue" aria-label="Queue">
      <div class="queue-head">
        <span>{waiting.length} queued</span>
        <span class="spacer" />
        {waiting.length > 1 && <button class="small" onClick={() => steer(waiting.map((p) => p.promptId), `/api/v1/sessions/${sid}/prompts:steer`, { prompt_ids: waiting.map((p) => p.promptId) })}>Steer all</button>}
      </div>
      <ul>
        {queued.map((p) => (
          <li key={p.promptId}>
            <span class="q-text">{promptText(p) || p.promptId}</span>
            {steering.has(p.promptId)
              ? <span class="muted small-text">steering into the running turn…</span>
              : <>
                  <button class="small" title="Fold this prompt into the running turn" onClick={() => steer([p.promptId], `/api/v1/sessions/${sid}/prompts/${p.promptId}:steer`)}>Steer</button>
                  <button class="small ghost danger" title="Remove it from the queue" onClick={() => act(() => api('POST', `/api/v1/sessions/${sid}/prompts/${p.promptId}:abort`), 'remove the prompt')}>Remove</button>
                </>}
          </li>
        ))}
      </ul>
    </section>
  );
}
