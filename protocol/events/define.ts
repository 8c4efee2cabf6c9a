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
  /** Client superset: keys derived from the payload (`task.started`: `info`), with their schemas for /asyncapi.json. */
  readonly extend?: { readonly entries: Readonly<Record<string, PayloadSchema>>; build(payload: Record<string, unknown>): Record<string, unknown> };
}

/** Declares one event type; `registry.ts` collects them and checks the combination of fields. */
export function defineEvent<const T extends string, const D extends Durability, S extends PayloadSchema>(def: EventDef<T, D, S>): EventDef<T, D, S> {
  return Object.freeze({ ...def });
}

/** The payload type of an event, as emitters build it and readers get it. */
export type PayloadOfDef<E extends EventDef> = v.InferOutput<E['payload']>;
