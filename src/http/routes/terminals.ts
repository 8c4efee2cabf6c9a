import type { AppContext } from '../../app/context.ts';
import { findOwnedSession, findSession } from '../../sessions/lookup.ts';
import { openTerminal } from '../../terminals/open.ts';
import { Codes } from '../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { EmptyBody, SessionIdParams } from '../../protocol/schemas/sessions.ts';
import { TerminalClosedData, TerminalCreateBody, TerminalListData, TerminalObject, TerminalParams } from '../../protocol/schemas/terminals.ts';

const tags = ['terminals'];

/**
 * Part B "Terminals": lifecycle only; input, output and resize travel over
 * `terminal_*` WebSocket frames. Absent (404) on non-loopback binds unless
 * --allow-remote-terminals: a shell is the whole machine.
 */
export function terminalRoutes(app: AppContext): RouteDef[] {
  if (!app.terminals.enabled) return [];
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/terminals', operationId: 'listTerminals', summary: 'Terminals of the session (running and recently exited); resumes a cold session', tags,
      params: SessionIdParams, data: TerminalListData, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: async ({ params }) => {
        const s = findSession(app, params.session_id);
        await app.engine.resume(s);
        return { items: app.terminals.list(s.id) };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/terminals', operationId: 'createTerminal', summary: 'Open a terminal (a shell on a PTY) in the session workspace', tags,
      params: SessionIdParams, body: TerminalCreateBody, data: TerminalObject,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.PATH_NOT_FOUND, Codes.PATH_ESCAPE, Codes.SESSION_BUSY],
      handler: ({ params, body }) => openTerminal(app, params.session_id, body),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/terminals/{terminal_id}', operationId: 'getTerminal', summary: 'Get a terminal', tags,
      params: TerminalParams, data: TerminalObject, codes: [Codes.SESSION_NOT_FOUND, Codes.TERMINAL_NOT_FOUND],
      handler: ({ params }) => app.terminals.get(findSession(app, params.session_id).id, params.terminal_id).toObject(),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/terminals/{terminal_id}:close', operationId: 'closeTerminal',
      summary: 'Kill the terminal (SIGHUP, then SIGKILL after a grace); answers once the process is gone', tags,
      params: TerminalParams, body: EmptyBody, data: TerminalClosedData, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.TERMINAL_NOT_FOUND, Codes.SESSION_BUSY],
      handler: async ({ params }) => {
        const t = app.terminals.get(findOwnedSession(app, params.session_id).id, params.terminal_id);
        await app.terminals.close(t, 'request');
        return { closed: true as const };
      },
    }),
  ];
}
