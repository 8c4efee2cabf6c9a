import { COALESCE_MAX_WINDOWS, COALESCE_MIN_CHARS, DEFAULT_COALESCE_MS } from '../../src/ws/coalesce.ts';

interface Frame { type: string; session_id?: string; timestamp: string; payload?: any }

/**
 * The most delta frames (or batches) coalescing lets `mine` number, from what they carry and their own timestamps
 * (src/ws/coalesce.ts): the first delta of a step leaves at once; a held item leaves at the end of a window with at
 * least COALESCE_MIN_CHARS characters, or once it is COALESCE_MAX_WINDOWS windows old (its lane holds one item at a
 * time, so such waits do not overlap); every other frame of the session in between (`all` minus what `isDelta`
 * tells) may send what is held first, and the end of the stream sends the rest. How many frames a stream makes
 * depends on the machine's speed; this bound follows it (a slow machine spreads the stream over more windows), so a
 * test of coalescing holds on any machine and still fails when deltas leave one by one. One ms of slack per wait:
 * timestamps are in ms and a timer may fire up to one ms early.
 */
export function windowBound(all: Frame[], mine: Frame[], chars: number, isDelta: (f: Frame) => boolean, windowMs = DEFAULT_COALESCE_MS): number {
  if (!mine.length) return 0;
  const between = all.slice(all.indexOf(mine[0]!), all.indexOf(mine.at(-1)!));
  const flushes = between.filter((f) => f.session_id === mine[0]!.session_id && !isDelta(f)).length;
  return 2 + flushes + Math.floor(chars / COALESCE_MIN_CHARS) + Math.floor(spanMs(mine) / (COALESCE_MAX_WINDOWS * windowMs - 1));
}

/** ms between the first and the last of `frames` by their timestamps. */
export function spanMs(frames: Array<{ timestamp: string }>): number {
  return frames.length ? Date.parse(frames.at(-1)!.timestamp) - Date.parse(frames[0]!.timestamp) : 0;
}

/** The legacy delta frames (src/ws/coalesce.ts DeltaCoalescer). */
export const legacyDelta = (f: Frame) => f.type === 'assistant.delta' || f.type === 'thinking.delta' || f.type === 'tool.call.delta';
/** The transcript channel's delta batches. */
export const deltaBatch = (f: Frame) => f.type === 'transcript.ops' && f.payload?.volatile === true;
