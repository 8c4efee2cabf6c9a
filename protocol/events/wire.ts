import * as v from 'valibot';
import type { EventDef, PayloadSchema, TurnPlace, WireContext, WireInfo } from './define.ts';

export type { TurnPlace, WireContext, WireInfo };

/**
 * What a WebSocket frame carries for an event: the journaled payload (the spec's shape) plus the supersets existing
 * clients read (spec/clients.md E3, E4, E10, F). The journal keeps only the spec's fields; the superset is added once
 * per frame, when it is serialised, on every path (live, cursor replay, `client_hello` cursors).
 *
 * - `nest` (E3/E4): a copy of the payload under `payload.workspace` / `payload.session`.
 * - `extend` (A6, F): keys derived from the payload and the frame (`task.*`: `info`; `tool.call.started`: `name`,
 *   `args`, `description`, `display`; `turn.step.completed`: camelCase `usage` keys, ...).
 * - `aliases` (E10, F): a key also sent under the name clients read (`goal.updated`: `snapshot` beside `goal`).
 * - Every session event (E10, F): `type` (the frame's), `time` (epoch ms), `sessionId`, `agentId` (`main` when the
 *   payload names none), and a camelCase alias beside every top-level snake-case `*_id` key (`agent_id` -> `agentId`,
 *   `tool_call_id` -> `toolCallId`, ...), except `turn_id`: `turnId` is the agent's 0-based turn ordinal (an integer,
 *   the transcript's `t<ordinal>`), and for events inside a step `step` (1-based) and `stepId` (`t<ordinal>.<step>`).
 *   An existing key is never overwritten, save by `extend`, which builds supersets of the keys it replaces.
 */

/** One frame being serialised. */
export interface WireFrame {
  /** The session the frame is about; undefined for global events. */
  sessionId?: string;
  /** The event's stream seq (durable frames); undefined for volatile ones. */
  seq?: number;
  /** Epoch ms: the append time (durable), the send time (volatile). */
  time: number;
  ctx?: WireContext;
}

const ALIAS_CACHE = new Map<string, string>();

/** `agent_id` -> `agentId`; undefined when `key` is not a snake-case `*_id` key. */
export function camelAlias(key: string): string | undefined {
  let out = ALIAS_CACHE.get(key);
  if (out !== undefined) return out || undefined;
  out = /^[a-z][a-z0-9]*(_[a-z0-9]+)*_id$/.test(key) ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : '';
  if (ALIAS_CACHE.size < 1000) ALIAS_CACHE.set(key, out);
  return out || undefined;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

/** The keys every session event gets (F): who, where in the agent's turns, when, which frame. */
function sessionKeys(def: EventDef | undefined, type: string, f: WireFrame & { sessionId: string }, payload: Record<string, unknown>, out: Record<string, unknown>): TurnPlace | undefined {
  for (const k of Object.keys(payload)) {
    const alias = camelAlias(k);
    if (alias && alias !== 'turnId' && !(alias in payload)) out[alias] = payload[k];
  }
  const agentId = typeof payload.agent_id === 'string' ? payload.agent_id : 'main';
  if (!('sessionId' in out)) out.sessionId = f.sessionId;
  if (!('agentId' in out)) out.agentId = agentId;
  if (!('type' in out)) out.type = type;
  if (!('time' in out)) out.time = f.time;
  const turnId = typeof payload.turn_id === 'string' ? payload.turn_id : undefined;
  if (!def?.turn && turnId === undefined) return undefined;
  const place = f.ctx?.place(f.sessionId, agentId, turnId, f.seq);
  if (!place) return undefined;
  out.turnId = place.turn;
  if (def?.turn === 'step') {
    const step = typeof payload.step === 'number' ? payload.step : place.step;
    if (step !== undefined) {
      if (!('step' in payload)) out.step = step;
      out.stepId = `t${place.turn}.${step}`;
    }
  }
  return place;
}

/** The wire payload of an event of type `type`. */
export function wirePayload(def: EventDef | undefined, type: string, f: WireFrame, payload: unknown): unknown {
  if (!isPlainObject(payload)) return payload;
  let out: Record<string, unknown> | undefined;
  let place: TurnPlace | undefined;
  if (f.sessionId !== undefined) {
    out = { ...payload };
    place = sessionKeys(def, type, f as WireFrame & { sessionId: string }, payload, out);
  }
  if (def?.nest) {
    out ??= { ...payload };
    out[def.nest] = payload;
  }
  if (def?.extend) {
    out ??= { ...payload };
    const info: WireInfo = { type, time: f.time, ...(place ? { place } : {}) };
    if (f.sessionId !== undefined && def.extend.cwd) {
      const cwd = f.ctx?.cwd(f.sessionId);
      if (cwd) info.cwd = cwd;
    }
    Object.assign(out, def.extend.build(payload, info));
  }
  if (def?.aliases) {
    out ??= { ...payload };
    for (const [k, alias] of Object.entries(def.aliases)) if (k in payload && !(alias in payload)) out[alias] = payload[k];
  }
  return out ?? payload;
}

type ObjectLike = { type: string; entries?: Record<string, PayloadSchema>; pipe?: readonly unknown[] };

/** The object schema inside a payload schema (itself, or the first item of a pipe); undefined otherwise. */
function objectOf(schema: PayloadSchema): ObjectLike | undefined {
  const s = schema as unknown as ObjectLike;
  if (s.entries) return s;
  const first = s.pipe?.[0] as ObjectLike | undefined;
  return first?.entries ? first : undefined;
}

const described = (schema: PayloadSchema, text: string) => v.pipe(schema, v.description(text)) as PayloadSchema;
const Ordinal = v.pipe(v.number(), v.integer(), v.minValue(0));
const optional = (schema: PayloadSchema, required: boolean) => (required ? schema : (v.optional(schema) as PayloadSchema));

/** `sessionId`, `agentId`, `type`, `time`, `turnId`, `step`, `stepId` (F) as schemas. */
function sessionEntries(def: EventDef, entries: Record<string, PayloadSchema>): void {
  const obj = objectOf(def.payload)!;
  for (const k of Object.keys(obj.entries!)) {
    const alias = camelAlias(k);
    if (alias && alias !== 'turnId' && !(alias in entries)) entries[alias] = obj.entries![k]!;
  }
  entries.sessionId ??= described(v.string(), 'the session (alias of the envelope `session_id`)');
  entries.agentId ??= described(v.string(), 'the agent (`agent_id`; `main` when the payload names none): an id other than `main` is a subagent');
  entries.type ??= described(v.string(), 'the frame\'s type');
  entries.time ??= described(v.pipe(v.number(), v.integer()), 'epoch ms: when the event was journaled (durable), sent (volatile)');
  const turnKey = obj.entries!.turn_id as { type?: string } | undefined;
  if (!def.turn && !turnKey) return;
  // Required where the event always names its turn (`turn_id`), or always falls inside one.
  const inTurn = turnKey ? turnKey.type !== 'optional' : Boolean(def.turn);
  entries.turnId = optional(described(Ordinal, 'the agent\'s turn as its 0-based ordinal (transcript `t<ordinal>`); `turn_id` is the engine\'s id'), inTurn);
  if (def.turn !== 'step') return;
  if (!obj.entries!.step) entries.step = v.optional(described(v.pipe(v.number(), v.integer(), v.minValue(1)), 'the step of the turn the event falls in (1-based), once one started'));
  // Required where the payload names its step (`turn.step.*`): the turn's place gives `turnId`, the step the id.
  const stepId = described(v.string(), '`t<turnId>.<step>` (transcript step id)');
  const ownStep = obj.entries!.step as { type?: string } | undefined;
  entries.stepId = ownStep && ownStep.type !== 'optional' && inTurn ? stepId : v.optional(stepId);
}

/** The schema of the wire payload (for /asyncapi.json and the contract checks): the registry's plus the superset keys. */
export function wirePayloadSchema(def: EventDef, sessionScoped: boolean): PayloadSchema {
  const obj = objectOf(def.payload);
  if (!obj?.entries || (!sessionScoped && !def.nest && !def.aliases && !def.extend)) return def.payload;
  const entries: Record<string, PayloadSchema> = { ...obj.entries };
  if (sessionScoped) sessionEntries(def, entries);
  for (const [k, alias] of Object.entries(def.aliases ?? {})) if (obj.entries[k] && !(alias in entries)) entries[alias] = obj.entries[k];
  for (const [k, schema] of Object.entries(def.extend?.entries ?? {})) entries[k] = schema;
  if (def.nest) entries[def.nest] = v.pipe(def.payload, v.description('a copy of the payload (clients read this key)')) as PayloadSchema;
  const loose = obj.type === 'loose_object';
  return (loose ? v.looseObject(entries) : v.object(entries)) as PayloadSchema;
}
