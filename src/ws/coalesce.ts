import type { VolatileType } from '../../protocol/events/registry.ts';

/**
 * Delta coalescing, one rule for both channels (docs/websocket.md "Transcript channel"): the legacy delta frames
 * (`assistant.delta`, `thinking.delta`, `tool.call.delta`, fanout.ts) and the transcript delta batches
 * (transcript/pacing.ts). The first delta of a step leaves at once; later ones are merged into what is held for
 * their lane and leave together once the held item is `windowMs` old and carries at least `minSize` characters,
 * or once it is `maxMs` old whatever its size. A fast stream thus leaves in chunks of about `minSize`
 * characters (a frame's envelope is ~250 bytes: sending 50-character frames doubled the bytes), a slow one
 * at most `maxMs` after its text arrived. A caller flushes a lane or a group before anything that must not
 * overtake the held item (a durable frame, another volatile frame of the session).
 */

/** The window's default: about one animation frame. SVC_CODE_WS_COALESCE_MS overrides it (0: no coalescing; src/app/settings.ts). */
export const DEFAULT_COALESCE_MS = 16;
/** Characters a held item gathers before it leaves at the end of its window. */
export const COALESCE_MIN_CHARS = 192;
/** The longest a held item waits, in windows (4 x 16 ms: a slow stream still moves about 15 times a second). */
export const COALESCE_MAX_WINDOWS = 4;

export interface CoalescePolicy<T> {
  /** 0: nothing is held. */
  windowMs: number;
  minSize?: number;
  maxMs?: number;
  /** Characters an item carries (what `minSize` counts). */
  size(item: T): number;
  /** `next` merged into `held` (the held item may be changed in place and returned), or undefined when they cannot merge. */
  merge(held: T, next: T): T | undefined;
  /**
   * At a timed release only: the part of a held item that leaves now and the part that keeps waiting
   * (the transcript's tool-input throttle) until `at` (performance.now() ms; default: one window from now),
   * when the timer fires once for it. Undefined: all of it leaves. Explicit flushes always send all.
   */
  split?(group: string, lane: string, item: T, now: number): { now?: T; later?: T; at?: number };
  /**
   * Before `next` is merged into a part `split` held back: true when it only updates what is held back (a newer
   * input of the same tool frame), so it waits with it on the same timer. Otherwise (or undefined) the usual
   * window applies again and the next release asks `split` anew.
   */
  holdsWith?(held: T, next: T): boolean;
  send(group: string, lane: string, item: T): void;
  /** A timed release that threw (it runs on a timer: an exception there would end the process). */
  onError?(err: unknown): void;
}

/**
 * `until`: a part `split` held back may not leave before then; a merge of anything but an update of that
 * part (`holdsWith`) clears it, so the next release asks `split` again.
 */
interface Held<T> { item: T; since: number; until?: number }

export class Coalescer<T> {
  private readonly held = new Map<string, Map<string, Held<T>>>();
  /** Per group: the step key of the last delta per first-key (a new step's first delta is not held). */
  private readonly lastStep = new Map<string, Map<string, string>>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private readonly minSize: number;
  private readonly maxMs: number;

  constructor(private readonly p: CoalescePolicy<T>) {
    this.minSize = p.minSize ?? COALESCE_MIN_CHARS;
    this.maxMs = p.maxMs ?? p.windowMs * COALESCE_MAX_WINDOWS;
  }

  get enabled(): boolean {
    return this.p.windowMs > 0;
  }

  /**
   * A delta for `lane` of `group`. `firstKey` names the stream whose step is `step`: the first delta of a new
   * step leaves at once (after what its lane held) unless something is still held for the lane.
   */
  push(group: string, lane: string, firstKey: string, step: string, item: T): void {
    let steps = this.lastStep.get(group);
    if (!steps) this.lastStep.set(group, (steps = new Map()));
    const first = steps.get(firstKey) !== step;
    steps.set(firstKey, step);
    if (!this.enabled) return this.p.send(group, lane, item);
    const lanes = this.held.get(group);
    const h = lanes?.get(lane);
    const now = performance.now();
    if (h) {
      const waits = h.until !== undefined && this.p.holdsWith?.(h.item, item) === true;
      const merged = this.p.merge(h.item, item);
      if (merged !== undefined) {
        h.item = merged;
        if (waits) return;
        if (now - h.since >= this.p.windowMs && this.p.size(merged) >= this.minSize) return this.release(group, lane, h, now);
        if (h.until !== undefined) {
          // What was merged may leave sooner than the held-back part: the usual rule again (split is asked anew).
          h.until = undefined;
          this.arm(h.since + (this.p.size(merged) >= this.minSize ? this.p.windowMs : this.maxMs));
        }
        return;
      }
      this.flush(group, lane);
    }
    if (first) return this.p.send(group, lane, item);
    this.hold(group, lane, item, now);
  }

  /** Sends what is held for a lane, or for every lane of the group. */
  flush(group: string, lane?: string): void {
    const lanes = this.held.get(group);
    if (!lanes) return;
    for (const [l, h] of lane === undefined ? [...lanes] : lanes.has(lane) ? [[lane, lanes.get(lane)!] as const] : []) {
      lanes.delete(l);
      this.p.send(group, l, h.item);
    }
    if (!lanes.size) this.held.delete(group);
  }

  /** Forgets a group's step keys (its turn ended); with `all`, its held items too, unsent (the group is gone). */
  forget(group: string, all = false): void {
    this.lastStep.delete(group);
    if (all) this.held.delete(group);
  }

  /** Forgets the step keys of a group's first-keys that start with `prefix` (one agent's turn ended). */
  forgetKeys(group: string, prefix: string): void {
    const steps = this.lastStep.get(group);
    if (!steps) return;
    for (const k of steps.keys()) if (k.startsWith(prefix)) steps.delete(k);
    if (!steps.size) this.lastStep.delete(group);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    this.held.clear();
    this.lastStep.clear();
  }

  private hold(group: string, lane: string, item: T, now: number): void {
    let lanes = this.held.get(group);
    if (!lanes) this.held.set(group, (lanes = new Map()));
    lanes.set(lane, { item, since: now });
    this.arm(now + this.p.windowMs);
  }

  /** A timed release: what `split` lets go leaves, the rest waits on (held again from now). */
  private release(group: string, lane: string, h: Held<T>, now: number): void {
    const lanes = this.held.get(group);
    // An earlier send of this tick may have flushed or forgotten the group.
    if (lanes?.get(lane) !== h) return;
    const parts = this.p.split ? this.p.split(group, lane, h.item, now) : { now: h.item };
    if (parts.later === undefined) {
      lanes.delete(lane);
      if (!lanes.size) this.held.delete(group);
    } else {
      h.item = parts.later;
      h.since = now;
      // One timer for when the held-back part may leave, not one per window until then.
      h.until = Math.max(parts.at ?? now + this.p.windowMs, now + 1);
      this.arm(h.until);
    }
    if (parts.now !== undefined) this.p.send(group, lane, parts.now);
  }

  private releaseSafely(group: string, lane: string, h: Held<T>, now: number): void {
    try {
      this.release(group, lane, h, now);
    } catch (err) {
      if (this.p.onError) this.p.onError(err);
      else process.emitWarning(`delta coalescer: a timed release failed: ${String(err)}`);
    }
  }

  private arm(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.tick, Math.max(0, at - performance.now()));
  }

  private readonly tick = (): void => {
    this.timer = null;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [group, lanes] of [...this.held]) {
      for (const [lane, h] of [...lanes]) {
        const age = now - h.since;
        // 1 ms of slack: a timer that fires a hair early does not cost another window.
        const due = h.until !== undefined ? now + 1 >= h.until
          : age + 1 >= this.maxMs || (age + 1 >= this.p.windowMs && this.p.size(h.item) >= this.minSize);
        if (due) this.releaseSafely(group, lane, h, now);
        else next = Math.min(next, h.until ?? h.since + (this.p.size(h.item) >= this.minSize ? this.p.windowMs : this.maxMs));
      }
    }
    if (next < Infinity) this.arm(next);
  };
}

/** The field each legacy delta type streams. */
const FIELD: Partial<Record<VolatileType, 'text' | 'delta'>> = { 'assistant.delta': 'text', 'thinking.delta': 'text', 'tool.call.delta': 'delta' };

type Payload = Record<string, unknown> & { agent_id?: string; turn_id?: string; step?: number; tool_call_id?: string; offset?: number };

interface LegacyDelta { key: string; type: VolatileType; payload: Payload; offset: number | undefined; field: 'text' | 'delta'; owned: boolean }

export type SendVolatile = (sessionId: string, type: VolatileType, payload: unknown, offset?: number) => void;

/**
 * The legacy delta frames on the shared rule: one lane per agent of a session (any other frame of the session
 * sends every lane first), merged while the step, kind and tool call match and the text is contiguous (the first
 * frame's `offset` kept, so offsets stay exact). A lane per agent: a sub-agent streaming at the same time as the
 * main agent does not cut the other's merging short (one lane per session sent ~one frame per delta then).
 */
export class DeltaCoalescer {
  private readonly c: Coalescer<LegacyDelta>;

  constructor(windowMs: number, send: SendVolatile) {
    this.c = new Coalescer<LegacyDelta>({
      windowMs,
      size: (d) => (d.payload[d.field] as string).length,
      merge: (held, next) => {
        if (held.key !== next.key || !contiguous(held, next.payload)) return undefined;
        if (!held.owned) {
          held.payload = { ...held.payload };
          held.owned = true;
        }
        held.payload[held.field] = (held.payload[held.field] as string) + String(next.payload[held.field]);
        return held;
      },
      send: (sessionId, _lane, d) => send(sessionId, d.type, d.payload, d.offset),
    });
  }

  /** Takes a delta frame (true) or leaves the frame to the caller, after sending what is pending for the session (false). */
  push(sessionId: string, type: VolatileType, payload: unknown, offset?: number): boolean {
    const field = FIELD[type];
    const p = payload as Payload;
    if (!field || !this.c.enabled || typeof p[field] !== 'string') {
      this.c.flush(sessionId);
      return false;
    }
    const agent = p.agent_id ?? 'main';
    const step = `${p.turn_id}|${p.step}|${p.tool_call_id ?? ''}`;
    this.c.push(sessionId, agent, `${agent}|${type}`, step, { key: `${agent}|${type}|${step}`, type, payload: p, offset, field, owned: false });
    return true;
  }

  /** Sends the session's pending delta, if any. */
  flush(sessionId: string): void {
    this.c.flush(sessionId);
  }

  /** Forgets an agent's step keys (its turn ended); the session's other agents keep theirs. */
  forget(sessionId: string, agentId: string): void {
    this.c.forgetKeys(sessionId, `${agentId}|`);
  }

  close(): void {
    this.c.close();
  }
}

/** The next delta starts where the held text ends (payload offsets are cumulative). */
function contiguous(held: LegacyDelta, p: Payload): boolean {
  if (typeof held.payload.offset !== 'number' || typeof p.offset !== 'number') return true;
  return held.payload.offset + (held.payload[held.field] as string).length === p.offset;
}
