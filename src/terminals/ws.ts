import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { WsConnection } from '../ws/connection.ts';
import type { TerminalAttachPayload, TerminalDetachPayload, TerminalInputPayload, TerminalResizePayload } from '../ws/frames.ts';
import { ok, type Outcome } from '../ws/outcome.ts';
import type { TerminalService } from './service.ts';
import type { Terminal } from './terminal.ts';

/** The terminals the `terminal_*` frames act on. */
export interface TerminalFrameDeps {
  terminals: Pick<TerminalService, 'enabled' | 'find'>;
}

/** `terminal_*` client frames: each answers one ack; attach replays the scrollback once the ack is out. */

/** Finds the terminal and runs `then`; a missing one (40414) or a refusal (40001) is thrown to the ack mapper. */
function withTerminal(deps: TerminalFrameDeps, terminalId: string, then: (t: Terminal) => Outcome): Outcome {
  if (!deps.terminals.enabled) {
    throw new ApiError(Codes.VALIDATION, 'terminals are not available on this bind (start with --allow-remote-terminals)', {
      details: [{ field: 'type', message: 'terminals are disabled on non-loopback binds' }],
    });
  }
  return then(deps.terminals.find(terminalId));
}

function exitedError(t: Terminal): ApiError {
  return new ApiError(Codes.VALIDATION, `terminal has exited: ${t.id}`, { details: [{ field: 'payload.terminal_id', message: 'terminal has exited' }] });
}

export function terminalAttach(deps: TerminalFrameDeps, conn: WsConnection, p: TerminalAttachPayload): Outcome {
  return withTerminal(deps, p.terminal_id, (t) =>
    ok({ terminal_id: t.id, status: t.status, replay_offset: t.replayOffset(p.since), end_offset: t.endOffset }, () => t.attach(conn, p.since)),
  );
}

export function terminalDetach(deps: TerminalFrameDeps, conn: WsConnection, p: TerminalDetachPayload): Outcome {
  return withTerminal(deps, p.terminal_id, (t) => ok({ terminal_id: t.id, detached: t.detach(conn) }));
}

export function terminalInput(deps: TerminalFrameDeps, p: TerminalInputPayload): Outcome {
  return withTerminal(deps, p.terminal_id, (t) => {
    if (!t.running) throw exitedError(t);
    t.write(p.data);
    return ok({ terminal_id: t.id });
  });
}

export function terminalResize(deps: TerminalFrameDeps, p: TerminalResizePayload): Outcome {
  return withTerminal(deps, p.terminal_id, (t) => {
    if (!t.running) throw exitedError(t);
    t.resize(p.cols, p.rows);
    return ok({ terminal_id: t.id, cols: t.cols, rows: t.rows });
  });
}
