// The windowed log's state between renders (the Chat component's refs, as one object): which items are in the
// DOM, their measured heights, the bottom pinning, paging older turns in, and a search hit's jump. Chat renders
// what `layout` says and hands the DOM events and its layout effect here.
import type { Item, Transcript } from '../transcript.ts';

/** Within this many pixels of the top, the next older page is fetched. */
const PAGE_AT_PX = 600;
/** Rendered beyond the visible part of the log, above and below. */
export const OVERSCAN_PX = 1200;
/** The height assumed for an item not rendered yet. */
const ESTIMATE_PX = 140;
/** Within this many pixels of the end, the view counts as at the bottom (and follows what comes). */
const BOTTOM_PX = 40;
/** Re-aims of a jump while the rows around it are measured, before it is taken as there. */
const JUMP_TRIES = 8;
/** At most this many older pages are asked for by one jump (a turn not in this transcript ends the jump there). */
const JUMP_PAGES = 80;

/** A turn to bring into view: the engine's turn id (`turn_id`, what search hits name); `n` tells a repeated jump apart. */
export type JumpTo = { turn: string; n: number };

export const keyOf = (i: Item): string => i.kind === 'turn' ? i.turnId : i.kind === 'marker' ? i.markerId : i.refId;

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

/** What one render shows: the items from `start` to `end`, spacers of `tops[start]` and `total - tops[end]`. */
export interface Window { keys: string[]; tops: number[]; total: number; start: number; end: number }

type Layout = { items: Item[]; n: number; first: string; last: string; hv: number; keys: string[]; tops: number[] };

/** The React side the window calls back: a render, the "Jump to latest" state, the loading state. */
export interface WindowHooks { rerender(): void; setAway(away: boolean): void; setLoading(on: boolean): void }

export class LogWindow {
  atBottom = true;
  private view = { top: 0, height: 800 };
  private heights = new Map<string, number>();
  private heightsVersion = 0;
  private pendingTop: number | null = null;
  private firstKey: string | null = null;
  private frame = 0;
  /** The away state the last render showed. */
  private away = false;
  private loading = false;
  // Set when a page of older turns failed or brought nothing: no automatic retry until the reader scrolls again
  // (the layout effect would otherwise ask again after every render).
  private stalled = false;
  private jumpSeen = 0;
  private jumping: { turn: string; aimed: boolean; tries: number; pages: number } | null = null;
  private shown: string;
  private last: Layout | null = null;
  private rendered = { start: 0, end: 0, from: 0, to: 0 };
  private keys: string[] = [];
  private jumpIdx = -1;
  private t: Transcript | null = null;
  private loadOlder: () => Promise<void> = async () => {};

  constructor(sid: string, private hooks: WindowHooks) {
    this.shown = sid;
  }

  /** Called at each render with what it shows: another session starts over at its bottom; a new jump leaves the bottom. */
  update(sid: string, t: Transcript, loadOlder: () => Promise<void>, jumpTo: JumpTo | null | undefined, away: boolean): void {
    this.t = t;
    this.loadOlder = loadOlder;
    this.away = away;
    if (this.shown !== sid) {
      this.shown = sid;
      this.atBottom = true;
      this.stalled = false;
      this.pendingTop = null;
      this.firstKey = null;
      this.heights = new Map();
      this.jumping = null;
    }
    if (jumpTo && jumpTo.n !== this.jumpSeen) {
      this.jumpSeen = jumpTo.n;
      this.jumping = { turn: jumpTo.turn, aimed: false, tries: 0, pages: 0 };
      this.atBottom = false;
      this.stalled = false;
    }
  }

  /** Keys and offsets (O(items): kept from the last render unless the items or a height changed). */
  private layoutOf(items: Item[]): Layout {
    let L = this.last;
    if (!L || L.items !== items || L.n !== items.length || L.hv !== this.heightsVersion || (items.length && (L.first !== keyOf(items[0]!) || L.last !== keyOf(items[items.length - 1]!)))) {
      const k = items.map(keyOf);
      L = { items, n: items.length, first: k[0] ?? '', last: k[k.length - 1] ?? '', hv: this.heightsVersion, keys: k, tops: [] };
    }
    // Older items prepended: the view moves down by their (estimated) height, so the reader stays in place.
    const keys = L.keys;
    const prevFirst = this.firstKey;
    if (prevFirst !== null && keys[0] !== prevFirst) {
      const k = keys.indexOf(prevFirst);
      if (k > 0) {
        let added = 0;
        for (let i = 0; i < k; i++) added += this.heights.get(keys[i]!) ?? ESTIMATE_PX;
        this.pendingTop = (this.pendingTop ?? this.view.top) + added;
        this.atBottom = false;
      }
    }
    this.firstKey = keys[0] ?? null;
    if (!L.tops.length) {
      const tops = new Array<number>(keys.length + 1);
      tops[0] = 0;
      for (let i = 0; i < keys.length; i++) tops[i + 1] = tops[i]! + (this.heights.get(keys[i]!) ?? ESTIMATE_PX);
      L.tops = tops;
    }
    this.last = L;
    return L;
  }

  /** The rows this render puts in the DOM. */
  layout(items: Item[]): Window {
    const { keys, tops } = this.layoutOf(items);
    const total = tops[keys.length]!;
    const j = this.jumping;
    this.keys = keys;
    this.jumpIdx = j ? items.findIndex((i) => i.kind === 'turn' && i.turn_id === j.turn) : -1;
    // The turn is held: set the view to its offset, so the window below takes it in.
    if (j && this.jumpIdx >= 0 && !j.aimed) {
      j.aimed = true;
      this.pendingTop = Math.max(0, tops[this.jumpIdx]! - 16);
    }
    const v = this.view;
    const top = this.atBottom && this.pendingTop === null ? Math.max(0, total - v.height) : this.pendingTop ?? v.top;
    const start = keys.length ? firstBelow(tops, top - OVERSCAN_PX) : 0;
    const end = keys.length ? Math.max(start, firstBelow(tops, top + v.height + OVERSCAN_PX) + 1) : 0;
    this.rendered = { start, end, from: tops[start]!, to: tops[end]! };
    return { keys, tops, total, start, end };
  }

  /** A page of older turns, when there are some and none is on its way. */
  async older(): Promise<void> {
    const t = this.t;
    if (!t || this.loading || !t.hasMoreOlder) return;
    this.loading = true;
    this.hooks.setLoading(true);
    const before = t.items.length;
    try {
      await this.loadOlder();
      this.stalled = false;
    } catch {
      this.stalled = true;
    } finally {
      this.loading = false;
      this.hooks.setLoading(false);
    }
    if (!this.stalled && t.items.length === before) this.stalled = true;
  }

  /** Measures the rendered rows; true when a height changed. */
  private measure(el: HTMLElement): boolean {
    let changed = false;
    for (const row of el.querySelectorAll<HTMLElement>(':scope > .row')) {
      const key = row.dataset.key!;
      const h = row.offsetHeight;
      if (Math.abs((this.heights.get(key) ?? -1) - h) > 0.5) {
        this.heights.set(key, h);
        this.heightsVersion++;
        changed = true;
      }
    }
    return changed;
  }

  /**
   * After each render: measure the rendered items; restore the reader's place after a prepend, else follow
   * the stream at the bottom; page in more while the view is not yet scrollable.
   */
  afterRender(el: HTMLElement): void {
    const v = this.view;
    v.height = el.clientHeight || v.height;
    let changed = this.measure(el);
    // A scroll the reader made that no scroll event has reported yet (it fires on the next frame): take it in
    // before following the stream, or the view would be yanked back to the bottom over it.
    if (this.pendingTop === null && this.atBottom && Math.abs(el.scrollTop - v.top) > 1 && el.scrollHeight - el.scrollTop - el.clientHeight >= BOTTOM_PX) {
      v.top = el.scrollTop;
      this.atBottom = false;
    }
    if (this.pendingTop !== null) {
      el.scrollTop = this.pendingTop;
      v.top = el.scrollTop;
      if (!this.loading) this.pendingTop = null;
    } else if (this.atBottom) {
      el.scrollTop = el.scrollHeight;
      v.top = el.scrollTop;
    }
    if (this.jumping) changed = this.jumpStep(el) || changed;
    if (changed) this.hooks.rerender();
    const isAway = !this.atBottom && el.scrollHeight - el.scrollTop - el.clientHeight > BOTTOM_PX;
    if (isAway !== this.away) this.hooks.setAway(isAway);
    const t = this.t!;
    if ((el.scrollHeight <= el.clientHeight || (!this.atBottom && el.scrollTop < PAGE_AT_PX)) && t.hasMoreOlder && !this.loading && !this.stalled) void this.older();
  }

  /** The log resized without a render of the chat (the queue bar, the composer growing a line, the window): at the bottom, stay there. */
  resized(el: HTMLElement): void {
    if (!this.atBottom || this.pendingTop !== null || this.jumping) return;
    el.scrollTop = el.scrollHeight;
    this.view.top = el.scrollTop;
  }

  /** Back to the bottom, following what comes (the reader's own send, "Jump to latest"). */
  toBottom(el: HTMLElement | null): void {
    this.atBottom = true;
    this.pendingTop = null;
    this.jumping = null;
    if (el) {
      el.scrollTop = el.scrollHeight;
      this.view.top = el.scrollTop;
    }
    this.hooks.setAway(false);
    this.hooks.rerender();
  }

  /**
   * One step of a jump after a render: page older turns in while the turn is not held; once its row is
   * rendered, scroll it to the middle of the view (its top when taller) and ask for another render (rows
   * around it get measured, which moves it) until it stays put; then mark and focus it. True: render again.
   */
  private jumpStep(el: HTMLElement): boolean {
    const jj = this.jumping!;
    // A page still coming in (its render can run before older() has settled): the render after it goes on.
    if (this.loading) return false;
    if (this.jumpIdx < 0) {
      if (this.t!.hasMoreOlder && !this.stalled && jj.pages++ < JUMP_PAGES) {
        void this.older();
        return false;
      }
      // Not in this transcript: back to the newest turns.
      this.jumping = null;
      this.atBottom = true;
      return true;
    }
    const row = el.querySelector<HTMLElement>(`:scope > .row[data-key="${CSS.escape(this.keys[this.jumpIdx]!)}"]`);
    if (!row) return false;
    const r = row.getBoundingClientRect();
    const at = el.scrollTop + r.top - el.getBoundingClientRect().top;
    const want = Math.max(0, Math.min(el.scrollHeight - el.clientHeight, r.height < el.clientHeight ? at - (el.clientHeight - r.height) / 2 : at - 16));
    if (Math.abs(el.scrollTop - want) > 1 && jj.tries++ < JUMP_TRIES) {
      el.scrollTop = want;
      this.view.top = el.scrollTop;
      this.atBottom = false;
      return true;
    }
    this.jumping = null;
    focusHit(row);
    return false;
  }

  /** A scroll re-renders only when the view comes within half the overscan of the rendered rows' edge. */
  scrolled(el: HTMLElement): void {
    const v = this.view;
    const moved = Math.abs(el.scrollTop - v.top) > 1;
    v.top = el.scrollTop;
    const gap = el.scrollHeight - el.scrollTop - el.clientHeight;
    // Only a move of the view leaves the bottom: an event the log's own resizing caused keeps it there.
    if (gap < BOTTOM_PX) this.atBottom = true;
    else if (moved) this.atBottom = false;
    const isAway = !this.atBottom && gap > BOTTOM_PX;
    if (isAway !== this.away) this.hooks.setAway(isAway);
    this.stalled = false;
    if (el.scrollTop < PAGE_AT_PX && this.t!.hasMoreOlder) void this.older();
    const r = this.rendered;
    const covered = (r.start === 0 || el.scrollTop - OVERSCAN_PX / 2 >= r.from) && (r.end >= this.keys.length || el.scrollTop + el.clientHeight + OVERSCAN_PX / 2 <= r.to);
    if (!covered && !this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.hooks.rerender(); });
  }
}

/** Marks a search hit's turn for a moment and focuses it. */
function focusHit(row: HTMLElement): void {
  const article = row.querySelector<HTMLElement>('article.turn');
  if (!article) return;
  article.classList.add('hit');
  setTimeout(() => article.classList.remove('hit'), 2500);
  article.tabIndex = -1;
  article.focus({ preventScroll: true });
}
