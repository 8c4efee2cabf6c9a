import { APPROVAL_EVENTS } from './approvals.ts';
import { COMPACTION_EVENTS } from './compaction.ts';
import { CONFIG_EVENTS } from './config.ts';
import type { Durability, EventDef, PayloadOfDef, PayloadSchema, TranscriptRole } from './define.ts';
import { DELTA_EVENTS } from './deltas.ts';
import { FILE_EVENTS } from './files.ts';
import { GUI_EVENTS } from './gui.ts';
import { HOOK_EVENTS } from './hooks.ts';
import { PLUGIN_EVENTS } from './plugins.ts';
import { QUESTION_EVENTS } from './questions.ts';
import { SESSION_EVENTS } from './session.ts';
import { SKILL_EVENTS } from './skills.ts';
import { SUBAGENT_EVENTS } from './subagents.ts';
import { TASK_EVENTS } from './tasks.ts';
import { TERMINAL_EVENTS } from './terminals.ts';
import { TODO_EVENTS } from './todos.ts';
import { TOOL_EVENTS } from './tools.ts';
import { TURN_EVENTS } from './turns.ts';
import { UPLOAD_EVENTS } from './uploads.ts';
import { WORKSPACE_EVENTS } from './workspace.ts';

/** Every event type the server emits, one entry each (docs/events.md). Fixed at start. */
const ALL = [
  ...SESSION_EVENTS, ...WORKSPACE_EVENTS, ...CONFIG_EVENTS, ...GUI_EVENTS, ...UPLOAD_EVENTS,
  ...TURN_EVENTS, ...DELTA_EVENTS, ...TOOL_EVENTS, ...APPROVAL_EVENTS, ...QUESTION_EVENTS,
  ...TASK_EVENTS, ...SUBAGENT_EVENTS, ...SKILL_EVENTS, ...TODO_EVENTS, ...COMPACTION_EVENTS, ...TERMINAL_EVENTS, ...FILE_EVENTS,
  ...PLUGIN_EVENTS, ...HOOK_EVENTS,
] as const;

type AnyEvent = (typeof ALL)[number];
export type EventType = AnyEvent['type'];
export type DurableType = Extract<AnyEvent, { durability: 'durable' }>['type'];
export type VolatileType = Extract<AnyEvent, { durability: 'volatile' }>['type'];
/**
 * Some of the registry's names, as a type: `EventTypes<'turn.ended' | 'turn.started'>` fails to compile on a name the
 * registry does not define, where a bare union of literals would not.
 */
export type EventTypes<T extends EventType> = T;
/** The payload of an event type, inferred from its schema. */
export type PayloadOf<T extends EventType> = PayloadOfDef<Extract<AnyEvent, { type: T }>>;

/** The names entries journal as companions (`prompt.submitted` beside `prompt.accepted`). */
type CompanionType = AnyEvent extends infer E ? (E extends EventDef<string, Durability, PayloadSchema, infer C> ? C : never) : never;
/** Compiles only while every companion is a registered name (the definitions are outside the architecture test's reach). */
export type CompanionsRegistered = Exclude<CompanionType, EventType> extends never ? true : never;
const companionsRegistered: CompanionsRegistered = true;
void companionsRegistered;

/** A durable event as an emitter builds it: its type picks the payload's shape. */
export type NewEvent = { [T in DurableType]: { type: T; payload: PayloadOf<T> } }[DurableType];
/** A durable event with the stream it goes on (what the journal appends). */
export type NewStreamEvent = NewEvent & { stream: string };

/** Combinations of fields that make sense; anything else is a mistake in an entry. */
function assertCoherent(d: EventDef): void {
  const fail = (why: string) => {
    throw new Error(`event ${d.type}: ${why}`);
  };
  if (!/^[a-z_]+(\.[a-z_]+)+$/.test(d.type)) fail('not a dotted lowercase name');
  // A subscribers' event in no transcript (`none`) is never suppressed on a graded connection (permission.approval.*).
  const sessionRoles: TranscriptRole[] = d.durability === 'volatile' ? ['delta', 'hidden', 'none'] : d.receivers === 'subscribers' ? ['turn', 'block', 'none'] : ['none'];
  if (d.durability === 'volatile' && d.stream !== 'session') fail('volatile events belong to a session');
  // A session event broadcast to every connection (spec/clients.md E5): stamped with its session's seq and epoch.
  // A session event for no client (a read model's input, such as file.changed) is durable too.
  if (d.stream === 'session' && d.receivers !== 'subscribers' && d.durability !== 'durable') fail('a broadcast or internal session event is durable');
  if (d.stream === 'session' && !sessionRoles.includes(d.transcript)) fail(`transcript ${d.transcript} with ${d.durability}`);
  if (d.stream === 'global' && d.receivers === 'subscribers') fail('global events have no subscribers');
  if (d.stream === 'gui' && d.receivers !== 'internal') fail('gui events are internal');
  if (d.stream !== 'session' && d.transcript !== 'none') fail('only session events are in a transcript');
}

function build(defs: readonly EventDef[]): ReadonlyMap<string, EventDef> {
  const map = new Map<string, EventDef>();
  for (const d of defs) {
    assertCoherent(d);
    if (map.has(d.type)) throw new Error(`event ${d.type}: defined twice`);
    map.set(d.type, d);
  }
  return map;
}

const BY_TYPE = build(ALL);

/** Every entry, in family order. */
export function eventDefs(): Iterable<EventDef> {
  return BY_TYPE.values();
}

/** The entry of a type; undefined for types the server never emits (old journals, copies). */
export function eventDef(type: string): EventDef | undefined {
  return BY_TYPE.get(type);
}

/** Global-stream events sent to every connection; the others are internal. */
export function isBroadcast(type: string): boolean {
  return BY_TYPE.get(type)?.receivers === 'broadcast';
}

/** Its transcript role; a type without an entry counts as an agent's durable block event, or a volatile frame in no transcript. */
export function transcriptRole(type: string, volatile: boolean): TranscriptRole {
  return BY_TYPE.get(type)?.transcript ?? (volatile ? 'none' : 'block');
}
