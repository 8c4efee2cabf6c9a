/** Per-connection state of one session's transcript channel (`subscribe_v2`) and its grade rules. */

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

/** Volatile frame types carried as ops at grade `delta`. */
const DELTA_TYPES = new Set(['assistant.delta', 'thinking.delta', 'tool.call.delta']);

/** Grade `turn`: turn boundaries, subagent lifecycle and interactions (approvals, questions). */
function isTurnOp(type: string): boolean {
  return type === 'turn.started' || type === 'turn.ended' || /^(subagent\.|event\.approval\.|event\.question\.)/.test(type);
}

export function gradeOf(sub: TranscriptSub, agentId: string): Grade {
  return sub.grades.get(agentId) ?? sub.fallback;
}

/** Whether an event of this type is an op at this grade. */
export function carries(grade: Grade, type: string, volatile: boolean): boolean {
  if (grade === 'off') return false;
  if (volatile) return grade === 'delta' && DELTA_TYPES.has(type);
  return grade !== 'turn' || isTurnOp(type);
}

export function isDeltaType(type: string): boolean {
  return DELTA_TYPES.has(type);
}

/**
 * The agent an event belongs to, as GET /transcript/ops counts it: `agent_id`, `main` when absent.
 * Volatile frames without `agent_id` (shell.*) belong to no transcript.
 */
export function transcriptAgent(agentId: unknown, volatile: boolean): string | undefined {
  if (typeof agentId === 'string') return agentId;
  return volatile ? undefined : 'main';
}

/** A legacy frame is suppressed when its agent has a non-off grade on this connection. */
export function suppressesLegacy(sub: TranscriptSub | undefined, agentId: unknown, volatile: boolean): boolean {
  if (!sub) return false;
  const agent = transcriptAgent(agentId, volatile);
  return agent !== undefined && gradeOf(sub, agent) !== 'off';
}
