/**
 * Coalescing of the legacy delta frames (`assistant.delta`, `thinking.delta`, `tool.call.delta`): the first
 * delta of a step leaves at once; later ones of the same agent, step and kind are merged (text concatenated,
 * the first one's offset kept, so offsets stay exact) and leave as one frame per window. A frame of another
 * kind, another volatile type or a durable event of the session sends what is pending first, so order holds.
 */

/** The window's default: about one animation frame. SVC_CODE_WS_COALESCE_MS overrides it (0: no coalescing). */
export const DEFAULT_COALESCE_MS = 16;

export function coalesceMsFromEnv(env: NodeJS.ProcessEnv): number {
  const n = Number(env.SVC_CODE_WS_COALESCE_MS);
  return env.SVC_CODE_WS_COALESCE_MS !== undefined && Number.isInteger(n) && n >= 0 ? n : DEFAULT_COALESCE_MS;
}

/** The field each delta type streams. */
const FIELD: Record<string, 'text' | 'delta'> = { 'assistant.delta': 'text', 'thinking.delta': 'text', 'tool.call.delta': 'delta' };

type Payload = Record<string, unknown> & { agent_id?: string; turn_id?: string; step?: number; tool_call_id?: string; offset?: number };

interface Pending { key: string; type: string; payload: Payload; offset: number | undefined; field: 'text' | 'delta' }

export type SendVolatile = (sessionId: string, type: string, payload: unknown, offset?: number) => void;

export class DeltaCoalescer {
  private readonly pending = new Map<string, Pending>();
  /** Per session, agent and type: the step key of the last delta sent (a new step's first delta is not held). */
  private readonly lastStep = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly windowMs: number, private readonly send: SendVolatile) {}

  /** Takes a delta frame (true) or leaves the frame to the caller, after sending what is pending for the session (false). */
  push(sessionId: string, type: string, payload: unknown, offset?: number): boolean {
    const field = FIELD[type];
    if (!field || this.windowMs <= 0) {
      this.flush(sessionId);
      return false;
    }
    const p = payload as Payload;
    const key = `${p.agent_id ?? 'main'}|${type}|${p.turn_id}|${p.step}|${p.tool_call_id ?? ''}`;
    const held = this.pending.get(sessionId);
    const stepKey = `${sessionId}|${p.agent_id ?? 'main'}|${type}`;
    const step = `${p.turn_id}|${p.step}|${p.tool_call_id ?? ''}`;
    const first = this.lastStep.get(stepKey) !== step;
    this.lastStep.set(stepKey, step);
    if (held && held.key === key && typeof held.payload[field] === 'string' && contiguous(held, p, field)) {
      held.payload = { ...held.payload, [field]: (held.payload[field] as string) + String(p[field]) };
      return true;
    }
    this.flush(sessionId);
    if (first) {
      this.send(sessionId, type, payload, offset);
      return true;
    }
    this.pending.set(sessionId, { key, type, payload: { ...p }, offset, field });
    this.timer ??= setTimeout(this.flushAll, this.windowMs);
    return true;
  }

  /** Sends the session's pending delta, if any. */
  flush(sessionId: string): void {
    const held = this.pending.get(sessionId);
    if (!held) return;
    this.pending.delete(sessionId);
    this.send(sessionId, held.type, held.payload, held.offset);
  }

  /** Forgets a session's step keys (its turn ended). */
  forget(sessionId: string): void {
    for (const k of this.lastStep.keys()) if (k.startsWith(`${sessionId}|`)) this.lastStep.delete(k);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }

  private readonly flushAll = (): void => {
    this.timer = null;
    for (const sid of [...this.pending.keys()]) this.flush(sid);
  };
}

/** The next delta starts where the held text ends (payload offsets are cumulative). */
function contiguous(held: Pending, p: Payload, field: 'text' | 'delta'): boolean {
  if (typeof held.payload.offset !== 'number' || typeof p.offset !== 'number') return true;
  return held.payload.offset + (held.payload[field] as string).length === p.offset;
}
