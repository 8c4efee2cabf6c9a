// The chat view: the turns (older ones paged in when the view is scrolled near the top), the pending
// approval and question cards, the queue of prompts waiting behind the running turn (steer / remove),
// and the composer. Only the turns near the view are rendered (windowed, log-window.ts), and a turn re-renders
// only when an op changed it (TurnView is memoised on `rev`), so a long session stays cheap to scroll (bench/web-ui.ts).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Icon } from '../icons.tsx';
import { busy, pending, type Transcript } from '../transcript.ts';
import { Composer } from '../composer/composer.tsx';
import { ApprovalCard, QuestionCard, type Act } from './cards.tsx';
import { Intro } from './intro.tsx';
import { LogWindow, type JumpTo } from './log-window.ts';
import { Queue } from './queue.tsx';
import { MarkerView, TurnView } from './turn.tsx';
import './chat.css';

export type { JumpTo };

/**
 * Windowed: only the items within OVERSCAN_PX of the visible part are in the DOM; spacers above and below
 * stand for the rest, at their measured heights (an estimate until an item was once rendered). Older pages
 * are prepended when the view nears the top and the reader's place is kept; the view follows the stream
 * while it is at the bottom. Only the reader leaves the bottom: a scroll event that did not move the view
 * (the log shrank under it: the queue bar, a taller composer) keeps it there, and a change of the log's size
 * re-pins it; the reader's own send takes the view back down; away from the bottom, "Jump to latest" shows.
 * `jumpTo` (a search hit) pages older turns in until the turn is held, sets the view to its offset so the
 * window renders it, re-aims while the rows around it get measured, then marks and focuses its article.
 */
export function Chat(props: {
  sid: string; t: Transcript; act: Act; loadOlder: () => Promise<void>; jumpTo?: JumpTo | null;
  offline: boolean; cwd?: string; branch: string | null | undefined;
}) {
  const { sid, t, act } = props;
  const log = useRef<HTMLDivElement>(null);
  const [, setTick] = useState(0);
  /** The view is away from the bottom (the "Jump to latest" button shows). */
  const [away, setAway] = useState(false);
  const [loading, setLoading] = useState(false);
  const win = useRef<LogWindow | null>(null);
  win.current ??= new LogWindow(sid, { rerender: () => setTick((n) => n + 1), setAway, setLoading });
  const w = win.current;
  w.update(sid, t, props.loadOlder, props.jumpTo, away);
  const running = busy(t);
  const items = t.items;
  const { keys, tops, total, start, end } = w.layout(items);
  useLayoutEffect(() => { if (log.current) w.afterRender(log.current); });
  useEffect(() => {
    const el = log.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => w.resized(el));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const toBottom = () => w.toBottom(log.current);
  const older = () => void w.older();
  const onScroll = () => { if (log.current) w.scrolled(log.current); };

  const prompts = [...t.prompts.values()];
  const runningPrompt = prompts.find((p) => p.status === 'running');
  const queued = prompts.filter((p) => p.status === 'queued').sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
  const waiting = pending(t);
  const approvals = waiting.filter((i) => i.interactionKind === 'approval');
  const fresh = items.length === 0 && !t.hasMoreOlder;
  return (
    <>
      <div class="log" ref={log} onScroll={onScroll} aria-live="polite" data-turns={items.length}>
        {t.hasMoreOlder && <button class="ghost older" disabled={loading} onClick={older}>{loading ? 'Loading older turns…' : 'Load older turns'}</button>}
        {fresh && <Intro sid={sid} cwd={props.cwd} branch={props.branch} />}
        <div class="spacer-top" style={{ height: `${tops[start]}px` }} />
        {items.slice(start, end).map((item, i) => (
          <div class="row" key={keys[start + i]} data-key={keys[start + i]}>
            {item.kind === 'turn'
              ? <TurnView turn={item} rev={item.rev ?? 0} irev={t.irev} sid={sid} attachments={t.attachments} interactions={t.interactions} />
              : item.kind === 'marker' ? <MarkerView m={item} /> : null}
          </div>
        ))}
        <div class="spacer-bottom" style={{ height: `${total - tops[end]!}px` }} />
        {waiting.filter((i) => i.interactionKind === 'question').map((i) => <QuestionCard key={i.interactionId} i={i} sid={sid} act={act} />)}
      </div>
      <div class="below-log">
        {away && (
          <button class="jump small" onClick={toBottom} aria-label="Jump to latest" title="Jump to the latest message">
            <Icon name="down" size={14} />Latest
          </button>
        )}
        {queued.length > 0 && (running || runningPrompt) && <Queue sid={sid} queued={queued} act={act} />}
        {approvals.length > 0 && (
          <div class="dock-zone">
            <ApprovalCard key={approvals[0]!.interactionId} i={approvals[0]!} sid={sid} act={act} more={approvals.length - 1} />
          </div>
        )}
      </div>
      <Composer sid={sid} busy={running} act={act} offline={props.offline} onSent={toBottom}
        modesKey={`${JSON.stringify(t.meta.modes ?? null)}|${t.meta.agent?.permission ?? ''}|${t.meta.agent?.model ?? ''}|${t.meta.agent?.thinkingEffort ?? ''}`}
        onAbort={() => act(() => runningPrompt ? api('POST', `/api/v1/sessions/${sid}/prompts/${runningPrompt.promptId}:abort`) : api('POST', `/api/v1/sessions/${sid}:abort`), 'stop the turn')} />
    </>
  );
}
