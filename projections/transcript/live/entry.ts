import type { Journal } from '../../../journal/journal.ts';
import type { JournalEvent } from '../../../journal/types.ts';
import type { DurableType, VolatileType } from '../../contract.ts';
import type { RecOp } from '../records-state.ts';
import type { TranscriptState } from '../state.ts';
import type { AgentLog, Rank } from './op-log.ts';

/** The live transcripts' collaborators and settings (one object; the transport phase passes the settings read at start, src/app/settings.ts). */
export interface LiveTranscriptOptions {
  journal: Journal;
  clock: { now(): Date };
  log: LiveLog;
  /** Turns a fold holds per agent, at least (LIVE_TURNS). */
  liveTurns?: number;
  /** How long turns a read put back stay after the last read, in ms (RETRIM_IDLE_MS; 0: they leave as it ends). */
  retrimMs?: number;
  /** Inputs queued per session while its fold is built or a restore runs (MAX_QUEUE). */
  maxQueue?: number;
  /** Sessions folded at once (MAX_ENTRIES). */
  maxEntries?: number;
}

/** What the live folds log (the daemon's pino logger). */
export interface LiveLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The settings as used; tests change them on a running server (`settings.retrimMs`, `settings.maxQueue`). */
export interface LiveSettings {
  liveTurns: number;
  retrimMs: number;
  maxQueue: number;
  maxEntries: number;
}

/**
 * Turns a live fold holds per agent, at least: once it holds LIVE_TURNS + TRIM_SLACK, the oldest ended ones leave
 * it down to LIVE_TURNS (projections/transcript/records-trim.ts) and come back from the journal when a page or an
 * event needs them. Above the newest page (20 turns), so a reset snapshot and the newest page never need them.
 * 20 sessions prompting back to back held ~1.7 KB per turn of records (docs/benchmarks.md "Session 8").
 */
export const LIVE_TURNS = 40;
/** At most this many turns more than LIVE_TURNS before a turn end trims (at most half of LIVE_TURNS). */
export const TRIM_SLACK = 20;
/**
 * Inputs queued per session while its fold is built or a restore runs, at most (a restore of a long journal under
 * streaming deltas); past it the fold is dropped as after a failed apply (clients see a gap and reload).
 */
export const MAX_QUEUE = 20_000;
/** Sessions folded at once; the least recently used goes first. */
export const MAX_ENTRIES = 64;
/**
 * How long turns a read put back stay after the last read, in ms: a reader walking back page by page is served from
 * them (one restore, not a journal fold per page); then they leave (an idle session holds LIVE_TURNS per agent).
 */
export const RETRIM_IDLE_MS = 30_000;

export function liveSettings(o: LiveTranscriptOptions): LiveSettings {
  return { liveTurns: o.liveTurns ?? LIVE_TURNS, retrimMs: o.retrimMs ?? RETRIM_IDLE_MS, maxQueue: o.maxQueue ?? MAX_QUEUE, maxEntries: o.maxEntries ?? MAX_ENTRIES };
}

/**
 * Who paces and delivers the batches (src/ws/transcript/pacing.ts): it gets each input's ops by agent and appends
 * them to the op journal (LiveTranscripts.append) as they leave, durable ones at once, streamed ones merged.
 */
export interface LiveListener {
  /** The ops of one committed event, by agent (each agent's held deltas leave first). */
  committed(sessionId: string, type: DurableType, rank: Rank, byAgent: Map<string, RecOp[]>): void;
  /** The ops of one streamed input (deltas, tool progress, task output), by agent. */
  streamed(sessionId: string, type: VolatileType, payload: Record<string, unknown>, byAgent: Map<string, RecOp[]>): void;
  /** The session's held ops leave now (a read takes the watermarks next). */
  flush(sessionId: string): void;
  /** The session's fold is gone (deleted, evicted, dropped): what is held for it goes unsent. */
  dropped(sessionId: string): void;
  /** Whether a reader follows the session: a committed event of a session not folded then folds it. */
  wanted(sessionId: string): boolean;
}

export type Input = JournalEvent | { type: VolatileType; payload: Record<string, unknown> };

export interface Entry {
  sessionId: string;
  state: TranscriptState | null;
  /** Journal seq folded. */
  seq: number;
  /** Inputs that arrived while the entry was folding or restoring trimmed turns. */
  queue: Input[];
  /** Set while trimmed turns are folded back from the journal (restore): inputs wait in `queue`. */
  busy?: Promise<void>;
  ready: Promise<Entry>;
  logs: Map<string, AgentLog>;
  /**
   * Reads in progress (read()): while pinned, a turn end does not trim (the view must see the turns a restore put
   * back, whatever the restore's queued inputs were); `retrim` notes that a trim waits for the last read to end.
   */
  pins: number;
  retrim?: boolean;
  /** The re-trim after the last read (retrimMs); a later read moves it. */
  retrimTimer?: NodeJS.Timeout;
  /** The session was deleted (forget()): a read waiting on this entry answers session-not-found. */
  gone?: boolean;
  /** The counter each agent's log starts from (docs/transcript.md: a fresh fold never reuses an earlier fold's seqs). */
  base: number;
}

/** What an entry out of the map still holds: its re-trim timer and queued inputs (a restore in flight sees it gone). */
export function release(e: Entry): void {
  clearTimeout(e.retrimTimer);
  e.retrimTimer = undefined;
  e.queue = [];
}
