import type { JournalEvent } from '../../../journal/types.ts';
import type { EventType, PayloadOf } from '../../../protocol/events/registry.ts';

// Planted mistakes for test/architecture/event-names.test.ts: each line marked `planted` must be reported, the
// others must not. Never imported by the server.

export function untypedTypo(e: JournalEvent): boolean {
  return e.type === 'turn.complted'; // planted
}

export function untypedRegistered(e: JournalEvent): boolean {
  return e.type !== 'turn.ended'; // planted
}

export function untypedCase(type: string): number {
  switch (type) {
    case 'tool.reslt': return 1; // planted
    default: return 0;
  }
}

export const STRING_SET = new Set<string>(['turn.ended', 'turn.started']); // planted (both)

export function memberOfStrings(type: string): boolean {
  return STRING_SET.has('turn.endd'); // planted
}

export const TABLE = { ended: 'turn.ended' } as const satisfies Record<string, EventType>; // planted

export type Hand = 'turn.ended' | 'turn.started'; // planted (both)

// Checked by the compiler: not reported.
export const TYPED_SET = new Set<EventType>(['turn.ended', 'turn.started']);
export const ENDS: readonly EventType[] = ['turn.ended'];
export function typed(type: EventType): boolean {
  return type === 'turn.ended' || TYPED_SET.has('turn.started');
}
export type Ended = PayloadOf<'turn.ended'>;
export const BY_TYPE: Partial<Record<EventType, number>> = { 'turn.ended': 1 };
export const EVENT: { type: EventType } = { type: 'turn.ended' };
export const NOT_AN_EVENT = ['package.json', 'config.toml'];
export function notAnEvent(name: string): boolean {
  return name === 'package.json' || name === 'settings.json';
}
