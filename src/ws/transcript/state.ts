import type { TranscriptRole } from '../../../protocol/events/define.ts';
import { transcriptRole } from '../../../protocol/events/registry.ts';

/** Per-connection state of one session's transcript channel (`subscribe_v2`) and its grade rules (from the event registry). */

export type Grade = 'off' | 'turn' | 'block' | 'delta';

/** A transcript frame waiting behind the baseline (reset / catch-up) of a fresh subscribe_v2. */
export interface HeldOp {
  agentId: string;
  seq: number;
  volatile: boolean;
  text: string;
}

export interface TranscriptSub {
  /** Explicit grades; an agent absent here has `fallback` (the `*` key, else off). */
  grades: Map<string, Grade>;
  fallback: Grade;
  /** Frames held while the baselines are read; null once live. */
  held: HeldOp[] | null;
}

/** How far up the grades go: a grade carries the ops of its rank and below (registry `transcript` roles). */
const RANK: Record<Grade, number> = { off: 0, turn: 1, block: 2, delta: 3 };
const ROLE_RANK: Record<TranscriptRole, number> = { turn: 1, block: 2, delta: 3, hidden: Infinity, none: Infinity };

export function gradeOf(sub: TranscriptSub, agentId: string): Grade {
  return sub.grades.get(agentId) ?? sub.fallback;
}

/** Whether an event of this type is an op at this grade. */
export function carries(grade: Grade, type: string, volatile: boolean): boolean {
  return RANK[grade] >= ROLE_RANK[transcriptRole(type, volatile)];
}

/** Whether a grade carries an ops batch of this rank (1 turn, 2 block, 3 delta: projections/transcript/live/op-log.ts). */
export function carriesRank(grade: Grade, rank: number): boolean {
  return RANK[grade] >= rank;
}

/** Whether this volatile type is ever carried as an op (grade `delta`). */
export function isDeltaType(type: string): boolean {
  return transcriptRole(type, true) === 'delta';
}

/**
 * The agent an event belongs to, as GET /transcript/ops counts it: `agent_id`, `main` when absent.
 * Volatile frames without `agent_id` (shell.*) suppress no agent's legacy frames (shell.output's task appends are
 * still folded onto main's channel by projections/transcript/live/, since task ops go to main).
 */
export function transcriptAgent(agentId: unknown, volatile: boolean): string | undefined {
  if (typeof agentId === 'string') return agentId;
  return volatile ? undefined : 'main';
}

/** A legacy frame of an agent's transcript is suppressed when that agent has a non-off grade on this connection. */
export function suppressesLegacy(sub: TranscriptSub | undefined, type: string, agentId: unknown, volatile: boolean): boolean {
  if (!sub || transcriptRole(type, volatile) === 'none') return false;
  const agent = transcriptAgent(agentId, volatile);
  return agent !== undefined && gradeOf(sub, agent) !== 'off';
}
