import { findOwnedSession, findSession } from '../../sessions/lookup.ts';
import { openTerminal, type TerminalOpenDeps } from '../../terminals/open.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { EmptyBody, SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import { TerminalClosedData, TerminalCreateBody, TerminalListData, TerminalObject, TerminalParams } from '../../../protocol/schemas/terminals.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';

const tags = ['terminals'];

export type TerminalRouteDeps = TerminalOpenDeps & { engine: Pick<EngineRegistry, 'resume'> };

/**
 * Part B "Terminals": lifecycle only; input, output and resize travel over
 * `terminal_*` WebSocket frames. Absent (404) on non-loopback binds unless
 * --allow-remote-terminals: a shell is the whole machine.
 */
export function terminalRoutes(deps: TerminalRouteDeps): RouteDef[] {
  if (!deps.terminals.enabled) return [];
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/terminals', operationId: 'listTerminals', summary: 'Terminals of the session (running and recently exited); resumes a cold session', tags,
      params: SessionIdParams, data: TerminalListData, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: async ({ params }) => {
        const s = findSession(deps, params.session_id);
        await deps.engine.resume(s);
        return { items: deps.terminals.list(s.id) };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/terminals', operationId: 'createTerminal', summary: 'Open a terminal (a shell on a PTY) in the session workspace', tags,
      params: SessionIdParams, body: TerminalCreateBody, data: TerminalObject,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.PATH_NOT_FOUND, Codes.PATH_ESCAPE, Codes.SESSION_BUSY],
      handler: ({ params, body }) => openTerminal(deps, params.session_id, body),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/terminals/{terminal_id}', operationId: 'getTerminal', summary: 'Get a terminal', tags,
      params: TerminalParams, data: TerminalObject, codes: [Codes.SESSION_NOT_FOUND, Codes.TERMINAL_NOT_FOUND],
      handler: ({ params }) => deps.terminals.get(findSession(deps, params.session_id).id, params.terminal_id).toObject(),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/terminals/{terminal_id}:close', operationId: 'closeTerminal',
      summary: 'Kill the terminal (SIGHUP, then SIGKILL after a grace); answers once the process is gone', tags,
      params: TerminalParams, body: EmptyBody, data: TerminalClosedData, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.TERMINAL_NOT_FOUND, Codes.SESSION_BUSY],
      handler: async ({ params }) => {
        const t = deps.terminals.get(findOwnedSession(deps, params.session_id).id, params.terminal_id);
        await deps.terminals.close(t, 'request');
        return { closed: true as const };
      },
    }),
  ];
}
