import type { EventType } from '../../protocol/events/registry.ts';

/** Terminal lifecycle facts, journaled on the session's stream (schemas: protocol/events/terminals.ts). Output never is. */
export const TerminalEvents = {
  opened: 'terminal.opened',
  exited: 'terminal.exited',
  closed: 'terminal.closed',
} as const satisfies Record<string, EventType>;
