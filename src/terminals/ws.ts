import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound } from '../../protocol/errors.ts';
import type { WsConnection } from '../ws/connection.ts';
import type { TerminalAttachPayload, TerminalClosePayload, TerminalDetachPayload, TerminalInputPayload, TerminalResizePayload } from '../../protocol/ws/client-frames.ts';
import { ok, type Outcome } from '../ws/outcome.ts';
import type { TerminalService } from './service.ts';
import type { Terminal } from './terminal.ts';

/** The terminals the `terminal_*` frames act on. */
export interface TerminalFrameDeps {
  terminals: Pick<TerminalService, 'enabled' | 'find' | 'closeLater'>;
}

/** `terminal_*` client frames: each answers one ack; attach replays the scrollback once the ack is out. */

/** Finds the terminal and runs `then`; a missing one (40414) or a refusal (40001) is thrown to the ack mapper. */
function withTerminal(deps: TerminalFrameDeps, p: { terminal_id: string; session_id?: string | undefined }, then: (t: Terminal) => Outcome): Outcome {
  if (!deps.terminals.enabled) {
    throw new ApiError(Codes.VALIDATION, 'terminals are not available on this bind (start with --allow-remote-terminals)', {
      details: [{ field: 'type', message: 'terminals are disabled on non-loopback binds' }],
    });
  }
  const t = deps.terminals.find(p.terminal_id);
  // A session named by the frame (web clients send it) must be the terminal's own.
  if (p.session_id !== undefined && p.session_id !== t.sessionId) throw notFound(Codes.TERMINAL_NOT_FOUND, 'terminal', p.terminal_id);
  return then(t);
}

function exitedError(t: Terminal): ApiError {
  return new ApiError(Codes.VALIDATION, `terminal has exited: ${t.id}`, { details: [{ field: 'payload.terminal_id', message: 'terminal has exited' }] });
}

export function terminalAttach(deps: TerminalFrameDeps, conn: WsConnection, p: TerminalAttachPayload): Outcome {
  // `since_seq` is web clients' name for it: the envelope `seq` of a terminal_output is the offset just past its data.
  const since = p.since ?? p.since_seq;
  return withTerminal(deps, p, (t) =>
    ok({ terminal_id: t.id, status: t.status, replay_offset: t.replayOffset(since), end_offset: t.endOffset }, () => t.attach(conn, since)),
  );
}

/** `terminal_close`: the ack at once, the kill after it (terminal_exit reaches attached connections once the process is gone). */
export function terminalClose(deps: TerminalFrameDeps, p: TerminalClosePayload): Outcome {
  return withTerminal(deps, p, (t) => {
    const running = t.running;
    return ok({ terminal_id: t.id, closing: running }, () => deps.terminals.closeLater(t, 'request'));
  });
}

export function terminalDetach(deps: TerminalFrameDeps, conn: WsConnection, p: TerminalDetachPayload): Outcome {
  return withTerminal(deps, p, (t) => ok({ terminal_id: t.id, detached: t.detach(conn) }));
}

export function terminalInput(deps: TerminalFrameDeps, p: TerminalInputPayload): Outcome {
  return withTerminal(deps, p, (t) => {
    if (!t.running) throw exitedError(t);
    t.write(p.data);
    return ok({ terminal_id: t.id });
  });
}

export function terminalResize(deps: TerminalFrameDeps, p: TerminalResizePayload): Outcome {
  return withTerminal(deps, p, (t) => {
    if (!t.running) throw exitedError(t);
    t.resize(p.cols, p.rows);
    return ok({ terminal_id: t.id, cols: t.cols, rows: t.rows });
  });
}
