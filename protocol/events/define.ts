import type * as v from 'valibot';

/** The journal stream a durable event goes on (volatile events belong to a session). */
export type EventStream = 'session' | 'global' | 'gui';
export type Durability = 'durable' | 'volatile';
/** `broadcast`: every connection; `subscribers`: the session's subscribers; `internal`: no client. */
export type Receivers = 'broadcast' | 'subscribers' | 'internal';
/**
 * Its place in an agent's transcript channel (`subscribe_v2`): an op from grade `turn`, `block` or
 * `delta` up; `hidden`: no op, yet the agent's legacy frame gives way to its transcript; `none`: in no
 * transcript, never suppressed.
 */
export type TranscriptRole = 'turn' | 'block' | 'delta' | 'hidden' | 'none';

export type PayloadSchema = v.GenericSchema<unknown, unknown>;

/** One event type: everything the server knows about it. */
export interface EventDef<
  T extends string = string,
  D extends Durability = Durability,
  S extends PayloadSchema = PayloadSchema,
  C extends string = string,
> {
  /** The spec's dotted name, a fact in the past tense. */
  readonly type: T;
  readonly stream: EventStream;
  readonly durability: D;
  readonly receivers: Receivers;
  readonly transcript: TranscriptRole;
  /** One line for /asyncapi.json. */
  readonly summary: string;
  readonly payload: S;
  /**
   * Client superset (spec/clients.md E3/E4): the wire payload also carries a copy of the payload
   * under this key (`payload.workspace`, `payload.session`); the journal keeps the spec's shape.
   */
  readonly nest?: string;
  /** Client superset: payload keys also sent under another name (`{goal: 'snapshot'}`: `payload.snapshot` = `payload.goal`). */
  readonly aliases?: Readonly<Record<string, string>>;
  /**
   * Client superset: keys derived from the payload and the frame (`task.started`: `info`; spec/clients.md F), with their
   * schemas for /asyncapi.json. A key it returns replaces the payload's (a superset of it: `usage` with camelCase keys
   * added). `cwd`: the builder reads the session's working directory (`info.cwd`).
   */
  readonly extend?: {
    readonly entries: Readonly<Record<string, PayloadSchema>>;
    readonly cwd?: boolean;
    build(payload: Record<string, unknown>, info: WireInfo): Record<string, unknown>;
  };
  /**
   * Where the event falls in its agent's turns (spec/clients.md F): `turn`, its frames carry `turnId` (the turn's
   * ordinal); `step`, also `step` and `stepId`. Events with a `turn_id` carry `turnId` in any case.
   */
  readonly turn?: 'turn' | 'step';
  /**
   * Events journaled with this one, at the end of its batch (src/events/journal.ts): the same fact under the names
   * other clients read (spec/clients.md F: `prompt.submitted` beside `prompt.accepted`). Checked like any append.
   */
  readonly companions?: (payload: Record<string, unknown>) => Array<{ type: C; payload: Record<string, unknown> }>;
}

/** Declares one event type; `registry.ts` collects them and checks the combination of fields. */
export function defineEvent<const T extends string, const D extends Durability, S extends PayloadSchema, const C extends string = never>(
  def: EventDef<T, D, S, C>,
): EventDef<T, D, S, C> {
  return Object.freeze({ ...def });
}

/** The payload type of an event, as emitters build it and readers get it. */
export type PayloadOfDef<E extends EventDef> = v.InferOutput<E['payload']>;

/** Where an event falls in its agent's turns: the turn's 0-based ordinal, the step (1-based) when one had started. */
export interface TurnPlace {
  turn: number;
  step?: number;
  /** When the turn started (epoch ms). */
  startedAt: number;
  /** The turn's origin kind (spec/clients.md B2): `user`, or `other` for goal continuations and subagent task prompts. */
  origin?: string;
}

/** What the frames of a daemon read besides the event: its turn index and the sessions' working directories. */
export interface WireContext {
  place(sessionId: string, agentId: string, turnId: string | undefined, seq: number | undefined): TurnPlace | undefined;
  cwd(sessionId: string): string | undefined;
}

/** What `extend` builders get besides the payload. */
export interface WireInfo {
  type: string;
  time: number;
  place?: TurnPlace;
  cwd?: string;
}
