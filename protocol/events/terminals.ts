import * as v from 'valibot';
import { TerminalObject } from '../schemas/terminals.ts';
import { defineEvent } from './define.ts';

/** Terminal lifecycle facts, on the session's stream. Output never is (it goes to attached connections only). */

const TerminalCloseReason = v.picklist(['request', 'session_archived', 'server_stopped']);

const opened = defineEvent({
  type: 'terminal.opened', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A terminal was opened in the session (POST /terminals)',
  payload: v.object({ terminal: TerminalObject }),
});

const exited = defineEvent({
  type: 'terminal.exited', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A terminal\'s shell ended by itself (exit, crash); the object carries exit_code and exited_at',
  payload: v.object({ terminal: TerminalObject }),
});

const closed = defineEvent({
  type: 'terminal.closed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'The daemon ended a terminal: :close (`request`), session archived (`session_archived`) or daemon stopping (`server_stopped`); '
    + 'exit_code is null after the signal',
  payload: v.object({ terminal: TerminalObject, reason: TerminalCloseReason }),
});

export const TERMINAL_EVENTS = [opened, exited, closed] as const;
