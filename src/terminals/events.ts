import * as v from 'valibot';
import { TerminalObject } from '../http/schemas/terminals.ts';

/** Terminal lifecycle facts, journaled on the session's stream. Output never is. */
export const TerminalEvents = {
  opened: 'terminal.opened',
  exited: 'terminal.exited',
  closed: 'terminal.closed',
} as const;

export const TerminalCloseReason = v.picklist(['request', 'session_archived', 'server_stopped']);

/** Payload schemas, for /asyncapi.json. */
export const TERMINAL_EVENT_DOCS = [
  {
    type: TerminalEvents.opened,
    summary: 'A terminal was opened in the session (POST /terminals)',
    payload: v.object({ terminal: TerminalObject }),
  },
  {
    type: TerminalEvents.exited,
    summary: 'A terminal\'s shell ended by itself (exit, crash); the object carries exit_code and exited_at',
    payload: v.object({ terminal: TerminalObject }),
  },
  {
    type: TerminalEvents.closed,
    summary: 'The daemon ended a terminal: :close (`request`), session archived (`session_archived`) or daemon stopping (`server_stopped`); exit_code is null after the signal',
    payload: v.object({ terminal: TerminalObject, reason: TerminalCloseReason }),
  },
];
