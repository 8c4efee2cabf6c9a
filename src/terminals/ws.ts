import type { AppContext } from '../app/context.ts';
import { Codes } from '../http/codes.ts';
import { ApiError } from '../http/errors.ts';
import type { WsConnection } from '../ws/connection.ts';
import type { TerminalAttachPayload, TerminalDetachPayload, TerminalInputPayload, TerminalResizePayload } from '../ws/frames.ts';
import type { Outcome } from '../ws/subscribe.ts';
import type { Terminal } from './terminal.ts';

/** `terminal_*` client frames: each answers one ack; attach replays the scrollback once the ack is out. */

function ok(payload: unknown, after?: () => void): Outcome {
  return after ? { code: Codes.OK, msg: 'success', payload, after } : { code: Codes.OK, msg: 'success', payload };
}

/** Finds the terminal and runs `then`; ApiErrors (40414, 40001) become the ack. */
function withTerminal(app: AppContext, terminalId: string, then: (t: Terminal) => Outcome): Outcome {
  try {
    if (!app.terminals.enabled) {
      throw new ApiError(Codes.VALIDATION, 'terminals are not available on this bind (start with --allow-remote-terminals)', {
        details: [{ field: 'type', message: 'terminals are disabled on non-loopback binds' }],
      });
    }
    return then(app.terminals.find(terminalId));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, msg: err.message, payload: null, details: err.details };
  }
}

function exitedError(t: Terminal): ApiError {
  return new ApiError(Codes.VALIDATION, `terminal has exited: ${t.id}`, { details: [{ field: 'payload.terminal_id', message: 'terminal has exited' }] });
}

export function terminalAttach(app: AppContext, conn: WsConnection, p: TerminalAttachPayload): Outcome {
  return withTerminal(app, p.terminal_id, (t) =>
    ok({ terminal_id: t.id, status: t.status, replay_offset: t.replayOffset(p.since), end_offset: t.endOffset }, () => t.attach(conn, p.since)),
  );
}

export function terminalDetach(app: AppContext, conn: WsConnection, p: TerminalDetachPayload): Outcome {
  return withTerminal(app, p.terminal_id, (t) => ok({ terminal_id: t.id, detached: t.detach(conn) }));
}

export function terminalInput(app: AppContext, p: TerminalInputPayload): Outcome {
  return withTerminal(app, p.terminal_id, (t) => {
    if (!t.running) throw exitedError(t);
    t.write(p.data);
    return ok({ terminal_id: t.id });
  });
}

export function terminalResize(app: AppContext, p: TerminalResizePayload): Outcome {
  return withTerminal(app, p.terminal_id, (t) => {
    if (!t.running) throw exitedError(t);
    t.resize(p.cols, p.rows);
    return ok({ terminal_id: t.id, cols: t.cols, rows: t.rows });
  });
}
