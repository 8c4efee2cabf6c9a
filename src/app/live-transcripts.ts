import { LiveTranscripts } from '../../projections/transcript/live/live-transcripts.ts';
import { LIVE_TURNS, RETRIM_IDLE_MS, type LiveTranscriptOptions } from '../../projections/transcript/live/entry.ts';
import { numberFromEnv } from '../lib/env-number.ts';

/** SVC_CODE_LIVE_RETRIM_MS (an integer >= 0) replaces RETRIM_IDLE_MS (tests: 0 re-trims as the last read ends). */
function liveRetrimMsFromEnv(env: NodeJS.ProcessEnv): number {
  return numberFromEnv(env, 'SVC_CODE_LIVE_RETRIM_MS', RETRIM_IDLE_MS, { min: 0 });
}

/** SVC_CODE_LIVE_TURNS (an integer >= 1) replaces LIVE_TURNS (tests: trimming after a few turns). */
function liveTurnsFromEnv(env: NodeJS.ProcessEnv): number {
  return numberFromEnv(env, 'SVC_CODE_LIVE_TURNS', LIVE_TURNS);
}

/** The daemon's live transcripts (projections/transcript/live/), their settings read from the environment once, here. */
export function createLiveTranscripts(deps: Pick<LiveTranscriptOptions, 'journal' | 'clock' | 'log'>, env: NodeJS.ProcessEnv): LiveTranscripts {
  return new LiveTranscripts({ ...deps, liveTurns: liveTurnsFromEnv(env), retrimMs: liveRetrimMsFromEnv(env) });
}
