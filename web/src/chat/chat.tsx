// The chat view: the turns (older ones paged in when the view is scrolled near the top), the pending
// approval and question cards, the queue of prompts waiting behind the running turn (steer / remove),
// and the composer. Turns re-render only when an op changed them (TurnView is memoised on `rev`) and the
// browser skips layout and paint of turns out of view (`content-visibility: auto`), so a long session
// stays cheap to scroll (bench/web-ui.ts).
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { busy, pending, type Transcript } from '../transcript.ts';
import { Composer } from '../composer/composer.tsx';
import { ApprovalCard, QuestionCard, type Act } from './cards.tsx';
import { MarkerView, TurnView } from './turn.tsx';
import './chat.css';

/** Within this many pixels of the top, the next older page is fetched. */
const PAGE_AT_PX = 600;

export function Chat(props: { sid: string; t: Transcript; act: Act; loadOlder: () => Promise<void> }) {
  const { sid, t, act } = props;
  const log = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const anchor = useRef<{ height: number; top: number } | null>(null);
  const [loading, setLoading] = useState(false);
  const loadingRef = useRef(false);
  const running = busy(t);

  const older = async () => {
    const el = log.current;
    if (!el || loadingRef.current || !t.hasMoreOlder) return;
    loadingRef.current = true;
    setLoading(true);
    anchor.current = { height: el.scrollHeight, top: el.scrollTop };
    try {
      await props.loadOlder();
    } finally {
      loadingRef.current = false;
      setLoading(false);
    }
  };

  // After each render: keep the reader's place when older turns were prepended, else follow the stream
  // when the view was at the bottom; page in more while the view is not yet scrollable.
  useLayoutEffect(() => {
    const el = log.current;
    if (!el) return;
    if (anchor.current) {
      el.scrollTop = el.scrollHeight - anchor.current.height + anchor.current.top;
      if (!loadingRef.current) anchor.current = null;
    } else if (atBottom.current) el.scrollTop = el.scrollHeight;
    if (el.scrollHeight <= el.clientHeight && t.hasMoreOlder && !loadingRef.current) void older();
  });

  const onScroll = () => {
    const el = log.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (el.scrollTop < PAGE_AT_PX && t.hasMoreOlder) void older();
  };

  const prompts = [...t.prompts.values()];
  const runningPrompt = prompts.find((p) => p.status === 'running');
  const queued = prompts.filter((p) => p.status === 'queued').sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
  return (
    <>
      <div class="log" ref={log} onScroll={onScroll} aria-live="polite" data-turns={t.items.length}>
        {t.hasMoreOlder && <button class="ghost older" disabled={loading} onClick={() => void older()}>{loading ? 'Loading older turns…' : 'Load older turns'}</button>}
        {t.items.map((item) => item.kind === 'turn'
          ? <TurnView key={item.turnId} turn={item} rev={item.rev ?? 0} sid={sid} attachments={t.attachments} />
          : item.kind === 'marker' ? <MarkerView key={item.markerId} m={item} /> : null)}
        {pending(t).map((i) => i.interactionKind === 'approval'
          ? <ApprovalCard key={i.interactionId} i={i} sid={sid} act={act} />
          : <QuestionCard key={i.interactionId} i={i} sid={sid} act={act} />)}
      </div>
      {queued.length > 0 && <Queue sid={sid} queued={queued} act={act} />}
      <Composer sid={sid} busy={running} meta={t.meta} act={act}
        onAbort={() => act(() => runningPrompt ? api('POST', `/api/v1/sessions/${sid}/prompts/${runningPrompt.promptId}:abort`) : api('POST', `/api/v1/sessions/${sid}:abort`))} />
    </>
  );
}

const promptText = (p: any): string => Array.isArray(p.content)
  ? p.content.map((c: any) => c?.type === 'text' ? c.text : c?.name ? `[${c.name}]` : '').filter(Boolean).join(' ')
  : '';

/**
 * Prompts sent while a turn runs wait in the queue: steer one (or all) into the running turn, or remove it.
 * A steered prompt stays listed ("steering…") until the turn takes it in at its next step (prompt.steered).
 */
function Queue(props: { sid: string; queued: any[]; act: Act }) {
  const { sid, queued, act } = props;
  const [steering, setSteering] = useState<Set<string>>(new Set());
  const steer = (ids: string[], path: string, body?: unknown) => act(async () => {
    await api('POST', path, body);
    setSteering((cur) => new Set([...cur, ...ids]));
  });
  const waiting = queued.filter((p) => !steering.has(p.promptId));
  return (
    <section class="queue" aria-label="Queue">
      <div class="queue-head">
        <span>{waiting.length} queued</span>
        {waiting.length > 1 && <button class="small" onClick={() => steer(waiting.map((p) => p.promptId), `/api/v1/sessions/${sid}/prompts:steer`, { prompt_ids: waiting.map((p) => p.promptId) })}>Steer all</button>}
      </div>
      <ul>
        {queued.map((p) => (
          <li key={p.promptId}>
            <span class="q-text">{promptText(p) || p.promptId}</span>
            {steering.has(p.promptId)
              ? <span class="muted">steering into the running turn…</span>
              : <>
                  <button class="small" title="Fold this prompt into the running turn" onClick={() => steer([p.promptId], `/api/v1/sessions/${sid}/prompts/${p.promptId}:steer`)}>Steer</button>
                  <button class="small danger" title="Remove it from the queue" onClick={() => act(() => api('POST', `/api/v1/sessions/${sid}/prompts/${p.promptId}:abort`))}>Remove</button>
                </>}
          </li>
        ))}
      </ul>
    </section>
  );
}
