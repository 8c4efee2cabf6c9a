import type { JournalEvent, StreamHead } from '../../journal/types.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { known } from '../contract.ts';
import { mainTurn } from './reducer.ts';

/** Sessions whose paths are kept; the least recently checked goes first (a later check folds that session once). */
const MAX_SESSIONS = 512;

interface Entry {
  /** The last event applied and its stream's epoch: the entry is good only while the stream's head is exactly that. */
  seq: number;
  epoch: string;
  /** A main turn started (the history ignores changes before the first one). */
  turned: boolean;
  /** Paths the history last saw existing, the newest change last (insertion order), at most `maxPaths`. */
  paths: Set<string>;
  /** A path was left out for the bound: after a removal the fold may name a path left out, so the entry is dropped. */
  truncated: boolean;
}

/**
 * The paths a session's file history last saw existing (what a Write or Edit made, not removed since), per
 * session, without the contents: what the Bash deletion check needs (src/tools/file-history.ts) on every
 * foreground command, which otherwise read the history's fold (the lazy projection keeps 8 sessions: with
 * more active, each check folded the session from the journal). Kept up to date from each appended event; a
 * stream is known from its first event (a new or imported session) or from one fold (`seed`). Any gap (an
 * event not applied, a refused append, a removed or re-created stream) makes the stream unknown again.
 * Bounded: `maxPaths` paths per session (the newest changes, as the check reads), MAX_SESSIONS sessions.
 */
export class ExistingPaths {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxPaths: number, private readonly maxSessions = MAX_SESSIONS) {}

  apply(event: JournalEvent): void {
    if (event.stream === GLOBAL_STREAM) return;
    let e = this.entries.get(event.stream);
    if (event.seq === 1) {
      e = { seq: 0, epoch: event.epoch, turned: false, paths: new Set(), truncated: false };
      this.entries.delete(event.stream);
      this.entries.set(event.stream, e);
      this.evict();
    }
    if (!e) return;
    if (event.seq !== e.seq + 1 || event.epoch !== e.epoch) {
      this.entries.delete(event.stream);
      return;
    }
    e.seq = event.seq;
    const ev = known(event);
    if (ev.type === 'turn.started') {
      if (mainTurn(event) !== undefined) e.turned = true;
    } else if (ev.type === 'file.changed' && e.turned) {
      const had = e.paths.delete(ev.payload.path);
      if (ev.payload.deleted) {
        if (had && e.truncated) this.entries.delete(event.stream);
        return;
      }
      e.paths.add(ev.payload.path);
      if (e.paths.size > this.maxPaths) {
        e.paths.delete(e.paths.values().next().value!);
        e.truncated = true;
      }
    }
  }

  /** The stream's paths, newest change first, when known at `head` (the stream's head now); undefined: fold it. */
  get(stream: string, head: StreamHead | undefined): string[] | undefined {
    const e = this.entries.get(stream);
    if (!e) return undefined;
    if (!head || head.epoch !== e.epoch || head.seq !== e.seq) {
      this.entries.delete(stream);
      return undefined;
    }
    this.entries.delete(stream);
    this.entries.set(stream, e);
    return [...e.paths].reverse();
  }

  /** What a fold of the stream up to `seq` found: `paths` newest change first; `turned`, whether a main turn started. */
  seed(stream: string, head: StreamHead | undefined, seq: number, turned: boolean, paths: string[]): void {
    if (!head || head.seq !== seq) return;
    this.entries.delete(stream);
    this.entries.set(stream, { seq, epoch: head.epoch, turned, paths: new Set(paths.slice(0, this.maxPaths).reverse()), truncated: paths.length > this.maxPaths });
    this.evict();
  }

  clear(): void {
    this.entries.clear();
  }

  private evict(): void {
    while (this.entries.size > this.maxSessions) this.entries.delete(this.entries.keys().next().value!);
  }
}
