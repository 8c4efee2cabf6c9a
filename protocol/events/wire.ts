import * as v from 'valibot';
import type { EventDef, PayloadSchema } from './define.ts';

/**
 * What a WebSocket frame carries for an event: the journaled payload (the spec's shape) plus the
 * supersets existing web clients read (spec/clients.md E3, E4, E10). The journal keeps only the
 * spec's fields; the superset is added once per frame, when it is serialised.
 *
 * - `nest` (E3/E4): a copy of the payload under `payload.workspace` / `payload.session`.
 * - `extend` (A6): keys derived from the payload (`task.*`: `info`; `compaction.completed`: `result`).
 * - `aliases` (E10): a key also sent under the name clients read (`goal.updated`: `snapshot` beside `goal`).
 * - Durable session events (E10): `sessionId`, and a camelCase alias beside every top-level snake-case
 *   `*_id` key (`agent_id` -> `agentId`, `turn_id` -> `turnId`, ...), so a client reading camelCase
 *   keys tells a sub-agent's events from the main agent's. An existing camelCase key is never overwritten.
 *   Volatile frames (deltas, progress) get only `agentId`: +17 bytes a frame instead of +109.
 */

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

/**
 * The wire payload of an event. `sessionId` is the session the frame is about (undefined for
 * global events, which get only their `nest` copy).
 */
export function wirePayload(def: EventDef | undefined, sessionId: string | undefined, payload: unknown): unknown {
  if (!isPlainObject(payload)) return payload;
  let out: Record<string, unknown> | undefined;
  if (sessionId !== undefined && def?.durability === 'volatile') {
    // Streamed frames (deltas) stay lean: only `agentId`, the key that routes them to a sub-agent.
    if (typeof payload.agent_id === 'string' && !('agentId' in payload)) out = { ...payload, agentId: payload.agent_id };
  } else if (sessionId !== undefined) {
    out = { ...payload };
    for (const k of Object.keys(payload)) {
      const alias = camelAlias(k);
      if (alias && !(alias in payload)) out[alias] = payload[k];
    }
    if (!('sessionId' in out)) out.sessionId = sessionId;
  }
  if (def?.nest) {
    out ??= { ...payload };
    out[def.nest] = payload;
  }
  if (def?.extend) {
    out ??= { ...payload };
    for (const [k, x] of Object.entries(def.extend.build(payload))) if (!(k in payload)) out[k] = x;
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

/** The schema of the wire payload (for /asyncapi.json and the contract checks): the registry's plus the superset keys. */
export function wirePayloadSchema(def: EventDef, sessionScoped: boolean): PayloadSchema {
  const obj = objectOf(def.payload);
  if (!obj?.entries || (!sessionScoped && !def.nest && !def.aliases && !def.extend)) return def.payload;
  const entries: Record<string, PayloadSchema> = { ...obj.entries };
  if (sessionScoped && def.durability === 'volatile') {
    if (obj.entries.agent_id && !('agentId' in entries)) entries.agentId = obj.entries.agent_id;
  } else if (sessionScoped) {
    for (const k of Object.keys(obj.entries)) {
      const alias = camelAlias(k);
      if (alias && !(alias in entries)) entries[alias] = obj.entries[k]!;
    }
    if (!('sessionId' in entries)) entries.sessionId = v.pipe(v.string(), v.description('the session (alias of the envelope `session_id`)')) as PayloadSchema;
  }
  for (const [k, alias] of Object.entries(def.aliases ?? {})) if (obj.entries[k] && !(alias in entries)) entries[alias] = obj.entries[k];
  for (const [k, schema] of Object.entries(def.extend?.entries ?? {})) if (!(k in entries)) entries[k] = schema;
  if (def.nest) entries[def.nest] = v.pipe(def.payload, v.description('a copy of the payload (clients read this key)')) as PayloadSchema;
  const loose = obj.type === 'loose_object';
  return (loose ? v.looseObject(entries) : v.object(entries)) as PayloadSchema;
}
