import { confine } from '../fs/confine.ts';
import type { WorkspaceDirsDeps } from '../workspaces/add-dir.ts';
import type { TerminalService } from './service.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { TerminalCreateBody, TerminalObject } from '../../protocol/schemas/terminals.ts';
import { RUNTIMES } from '../sessions/info.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../sessions/lookup.ts';
import { existingDirectory } from '../workspaces/service.ts';
import { resolveShell, shellEnv } from './shell.ts';

/** The session, the roots its shell may start in, and the terminals. */
export type TerminalOpenDeps = OwnedSessionLookup & WorkspaceDirsDeps & { terminals: TerminalService };

/** POST /sessions/{id}/terminals: checks in the spec's order (40401, 40420, 41304, 40409, shell 40001), then spawns. */
export async function openTerminal(deps: TerminalOpenDeps, sessionId: string, body: TerminalCreateBody): Promise<TerminalObject> {
  const s = findOwnedSession(deps, sessionId);
  const runtimeId = body.runtime_id ?? 'local';
  if (!(RUNTIMES as readonly string[]).includes(runtimeId)) {
    throw new ApiError(Codes.RUNTIME_NOT_FOUND, `runtime not found: ${runtimeId}`, { details: { runtime_id: runtimeId, known: RUNTIMES } });
  }
  const given = body.cwd ?? '.';
  const { abs, rel } = await confine(deps, s, given);
  const cwdAbs = await existingDirectory(abs, 'cwd');
  const shell = await resolveShell(body.shell, process.env);
  return deps.terminals.open({
    sessionId: s.id, cwdAbs, cwd: rel, shell, cols: body.cols ?? 80, rows: body.rows ?? 24, env: shellEnv(process.env, cwdAbs),
  });
}
