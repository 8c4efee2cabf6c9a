// The chat view: the turns (older ones paged in when the view is scrolled near the top), the pending
// approval and question cards, the queue of prompts waiting behind the running turn (steer / remove),
// and the composer. Only the turns near the view are rendered (windowed), and a turn re-renders only when
// an op changed it (TurnView is memoised on `rev`), so a long session stays cheap to scroll (bench/web-ui.ts).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Icon } from '../icons.tsx';
import { busy, pending, type Item, type Transcript } from '../transcript.ts';
import { Composer } from '../composer/composer.tsx';
import { ApprovalCard, QuestionCard, type Act } from './cards.tsx';
import { Intro } from './intro.tsx';
import { Queue } from './queue.tsx';
import { MarkerView, TurnView } from './turn.tsx';
import './chat.css';

/** Within this many pixels of the top, the next older page is fetched. */
const PAGE_AT_PX = 600;
/** Rendered beyond the visible part of the log, above and below. */
const OVERSCAN_PX = 1200;
/** The height assumed for an item not rendered yet. */
const ESTIMATE_PX = 140;
/** Within this many pixels of the end, the view counts as at the bottom (and follows what comes). */
const BOTTOM_PX = 40;

/** A turn to bring into view: the engine's turn id (`turn_id`, what search hits name); `n` tells a repeated jump apart. */
export type JumpTo = { turn: string; n: number };
/** Re-aims of a jump while the rows around it are measured, before it is taken as there. */
const JUMP_TRIES = 8;
/** At most this many older pages are asked for by one jump (a turn not in this transcript ends the jump there). */
const JUMP_PAGES = 80;

const keyOf = (i: Item): string => i.kind === 'turn' ? i.turnId : i.kind === 'marker' ? i.markerId : i.refId;

/** The first index whose item ends below `y` (tops: prefix sums, tops[i] is where item i starts). */
function firstBelow(tops: number[], y: number): number {
  let lo = 0;
  let hi = tops.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid + 1]! > y) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

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
  const atBottom = useRef(true);
  const view = useRef({ top: 0, height: 800 });
  const heights = useRef(new Map<string, number>());
  const pendingTop = useRef<number | null>(null);
  const firstKey = useRef<string | null>(null);
  const frame = useRef(0);
  const [, setTick] = useState(0);
  /** The view is away from the bottom (the "Jump to latest" button shows). */
  const [away, setAway] = useState(false);
  const awayRef = useRef(away);
  awayRef.current = away;
  const [loading, setLoading] = useState(false);
  const loadingRef = useRef(false);
  const running = busy(t);

  // Set when a page of older turns failed or brought nothing: no automatic retry until the reader scrolls again
  // (the layout effect would otherwise ask again after every render).
  const stalled = useRef(false);
  const older = async () => {
    if (!log.current || loadingRef.current || !t.hasMoreOlder) return;
    loadingRef.current = true;
    setLoading(true);
    const before = t.items.length;
    try {
      await props.loadOlder();
      stalled.current = false;
    } catch {
      stalled.current = true;
    } finally {
      loadingRef.current = false;
      setLoading(false);
    }
    if (!stalled.current && t.items.length === before) stalled.current = true;
  };

  const jumpSeen = useRef(0);
  const jumping = useRef<{ turn: string; aimed: boolean; tries: number; pages: number } | null>(null);
  // Another session in the same view: start over at its bottom (a jump into it is taken below).
  const shown = useRef(sid);
  if (shown.current !== sid) {
    shown.current = sid;
    atBottom.current = true;
    stalled.current = false;
    pendingTop.current = null;
    firstKey.current = null;
    heights.current = new Map();
    jumping.current = null;
  }
  // A new jump: leave the bottom; the turn is looked for below and after each render.
  if (props.jumpTo && props.jumpTo.n !== jumpSeen.current) {
    jumpSeen.current = props.jumpTo.n;
    jumping.current = { turn: props.jumpTo.turn, aimed: false, tries: 0, pages: 0 };
    atBottom.current = false;
    stalled.current = false;
  }
  const items = t.items;
  // Keys and offsets are O(items): kept from the last render unless the items or a height changed.
  const layout = useRef<{ items: Item[]; n: number; first: string; last: string; hv: number; keys: string[]; tops: number[] } | null>(null);
  const heightsVersion = useRef(0);
  let L = layout.current;
  if (!L || L.items !== items || L.n !== items.length || L.hv !== heightsVersion.current || (items.length && (L.first !== keyOf(items[0]!) || L.last !== keyOf(items[items.length - 1]!)))) {
    const k = items.map(keyOf);
    L = { items, n: items.length, first: k[0] ?? '', last: k[k.length - 1] ?? '', hv: heightsVersion.current, keys: k, tops: [] };
  }
  const keys = L.keys;
  // Older items prepended: the view moves down by their (estimated) height, so the reader stays in place.
  const prevFirst = firstKey.current;
  if (prevFirst !== null && keys[0] !== prevFirst) {
    const k = keys.indexOf(prevFirst);
    if (k > 0) {
      let added = 0;
      for (let i = 0; i < k; i++) added += heights.current.get(keys[i]!) ?? ESTIMATE_PX;
      pendingTop.current = (pendingTop.current ?? view.current.top) + added;
      atBottom.current = false;
    }
  }
  firstKey.current = keys[0] ?? null;
  if (!L.tops.length) {
    const tops = new Array<number>(keys.length + 1);
    tops[0] = 0;
    for (let i = 0; i < keys.length; i++) tops[i + 1] = tops[i]! + (heights.current.get(keys[i]!) ?? ESTIMATE_PX);
    L.tops = tops;
  }
  layout.current = L;
  const tops = L.tops;
  const total = tops[keys.length]!;
  const j = jumping.current;
  const jumpIdx = j ? items.findIndex((i) => i.kind === 'turn' && i.turn_id === j.turn) : -1;
  // The turn is held: set the view to its offset, so the window below takes it in.
  if (j && jumpIdx >= 0 && !j.aimed) {
    j.aimed = true;
    pendingTop.current = Math.max(0, tops[jumpIdx]! - 16);
  }
  const top = atBottom.current && pendingTop.current === null ? Math.max(0, total - view.current.height) : pendingTop.current ?? view.current.top;
  const start = keys.length ? firstBelow(tops, top - OVERSCAN_PX) : 0;
  const end = keys.length ? Math.max(start, firstBelow(tops, top + view.current.height + OVERSCAN_PX) + 1) : 0;
  const rendered = useRef({ start: 0, end: 0, from: 0, to: 0 });
  rendered.current = { start, end, from: tops[start]!, to: tops[end]! };

  // After each render: measure the rendered items; restore the reader's place after a prepend, else follow
  // the stream at the bottom; page in more while the view is not yet scrollable.
  useLayoutEffect(() => {
    const el = log.current;
    if (!el) return;
    view.current.height = el.clientHeight || view.current.height;
    let changed = false;
    for (const row of el.querySelectorAll<HTMLElement>(':scope > .row')) {
      const key = row.dataset.key!;
      const h = row.offsetHeight;
      if (Math.abs((heights.current.get(key) ?? -1) - h) > 0.5) {
        heights.current.set(key, h);
        heightsVersion.current++;
        changed = true;
      }
    }
    // A scroll the reader made that no scroll event has reported yet (it fires on the next frame): take it in
    // before following the stream, or the view would be yanked back to the bottom over it.
    if (pendingTop.current === null && atBottom.current && Math.abs(el.scrollTop - view.current.top) > 1 && el.scrollHeight - el.scrollTop - el.clientHeight >= BOTTOM_PX) {
      view.current.top = el.scrollTop;
      atBottom.current = false;
    }
    if (pendingTop.current !== null) {
      el.scrollTop = pendingTop.current;
      view.current.top = el.scrollTop;
      if (!loadingRef.current) pendingTop.current = null;
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
      view.current.top = el.scrollTop;
    }
    if (jumping.current) changed = jumpStep(el) || changed;
    if (changed) setTick((n) => n + 1);
    const isAway = !atBottom.current && el.scrollHeight - el.scrollTop - el.clientHeight > BOTTOM_PX;
    if (isAway !== away) setAway(isAway);
    if ((el.scrollHeight <= el.clientHeight || (!atBottom.current && el.scrollTop < PAGE_AT_PX)) && t.hasMoreOlder && !loadingRef.current && !stalled.current) void older();
  });

  // The log resized without a render of the chat (the queue bar, the composer growing a line, the window):
  // at the bottom, stay there.
  useEffect(() => {
    const el = log.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (!atBottom.current || pendingTop.current !== null || jumping.current) return;
      el.scrollTop = el.scrollHeight;
      view.current.top = el.scrollTop;
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  /** Back to the bottom, following what comes (the reader's own send, "Jump to latest"). */
  const toBottom = () => {
    atBottom.current = true;
    pendingTop.current = null;
    jumping.current = null;
    const el = log.current;
    if (el) {
      el.scrollTop = el.scrollHeight;
      view.current.top = el.scrollTop;
    }
    setAway(false);
    setTick((n) => n + 1);
  };

  /**
   * One step of a jump after a render: page older turns in while the turn is not held; once its row is
   * rendered, scroll it to the middle of the view (its top when taller) and ask for another render (rows
   * around it get measured, which moves it) until it stays put; then mark and focus it. True: render again.
   */
  const jumpStep = (el: HTMLDivElement): boolean => {
    const jj = jumping.current!;
    // A page still coming in (its render can run before older() has settled): the render after it goes on.
    if (loadingRef.current) return false;
    if (jumpIdx < 0) {
      if (t.hasMoreOlder && !stalled.current && jj.pages++ < JUMP_PAGES) {
        void older();
        return false;
      }
      // Not in this transcript: back to the newest turns.
      jumping.current = null;
      atBottom.current = true;
      return true;
    }
    const row = el.querySelector<HTMLElement>(`:scope > .row[data-key="${CSS.escape(keys[jumpIdx]!)}"]`);
    if (!row) return false;
    const r = row.getBoundingClientRect();
    const at = el.scrollTop + r.top - el.getBoundingClientRect().top;
    const want = Math.max(0, Math.min(el.scrollHeight - el.clientHeight, r.height < el.clientHeight ? at - (el.clientHeight - r.height) / 2 : at - 16));
    if (Math.abs(el.scrollTop - want) > 1 && jj.tries++ < JUMP_TRIES) {
      el.scrollTop = want;
      view.current.top = el.scrollTop;
      atBottom.current = false;
      return true;
    }
    jumping.current = null;
    const article = row.querySelector<HTMLElement>('article.turn');
    if (article) {
      article.classList.add('hit');
      setTimeout(() => article.classList.remove('hit'), 2500);
      article.tabIndex = -1;
      article.focus({ preventScroll: true });
    }
    return false;
  };

  // A scroll re-renders only when the view comes within half the overscan of the rendered rows' edge.
  const onScroll = () => {
    const el = log.current;
    if (!el) return;
    const moved = Math.abs(el.scrollTop - view.current.top) > 1;
    view.current.top = el.scrollTop;
    const gap = el.scrollHeight - el.scrollTop - el.clientHeight;
    // Only a move of the view leaves the bottom: an event the log's own resizing caused keeps it there.
    if (gap < BOTTOM_PX) atBottom.current = true;
    else if (moved) atBottom.current = false;
    const isAway = !atBottom.current && gap > BOTTOM_PX;
    if (isAway !== awayRef.current) setAway(isAway);
    stalled.current = false;
    if (el.scrollTop < PAGE_AT_PX && t.hasMoreOlder) void older();
    const r = rendered.current;
    const covered = (r.start === 0 || el.scrollTop - OVERSCAN_PX / 2 >= r.from) && (r.end >= keys.length || el.scrollTop + el.clientHeight + OVERSCAN_PX / 2 <= r.to);
    if (!covered && !frame.current) frame.current = requestAnimationFrame(() => { frame.current = 0; setTick((n) => n + 1); });
  };

  const prompts = [...t.prompts.values()];
  const runningPrompt = prompts.find((p) => p.status === 'running');
  const queued = prompts.filter((p) => p.status === 'queued').sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
  const waiting = pending(t);
  const approvals = waiting.filter((i) => i.interactionKind === 'approval');
  const fresh = items.length === 0 && !t.hasMoreOlder;
  return (
    <>
      <div class="log" ref={log} onScroll={onScroll} aria-live="polite" data-turns={items.length}>
        {t.hasMoreOlder && <button class="ghost older" disabled={loading} onClick={() => void older()}>{loading ? 'Loading older turns…' : 'Load older turns'}</button>}
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
