import type { AppContext } from '../app/context.ts';
import { confine } from '../fs/confine.ts';
import { Codes } from '../protocol/codes.ts';
import { ApiError } from '../protocol/errors.ts';
import type { TerminalCreateBody, TerminalObject } from '../protocol/schemas/terminals.ts';
import { RUNTIMES } from '../sessions/info.ts';
import { findOwnedSession } from '../sessions/lookup.ts';
import { existingDirectory } from '../workspaces/service.ts';
import { resolveShell, shellEnv } from './shell.ts';

/** POST /sessions/{id}/terminals: checks in the spec's order (40401, 40420, 41304, 40409, shell 40001), then spawns. */
export async function openTerminal(app: AppContext, sessionId: string, body: TerminalCreateBody): Promise<TerminalObject> {
  const s = findOwnedSession(app, sessionId);
  const runtimeId = body.runtime_id ?? 'local';
  if (!(RUNTIMES as readonly string[]).includes(runtimeId)) {
    throw new ApiError(Codes.RUNTIME_NOT_FOUND, `runtime not found: ${runtimeId}`, { details: { runtime_id: runtimeId, known: RUNTIMES } });
  }
  const given = body.cwd ?? '.';
  const { abs, rel } = await confine(app, s, given);
  const cwdAbs = await existingDirectory(abs, 'cwd');
  const shell = await resolveShell(body.shell, process.env);
  return app.terminals.open({
    sessionId: s.id, cwdAbs, cwd: rel, shell, cols: body.cols ?? 80, rows: body.rows ?? 24, env: shellEnv(process.env, cwdAbs),
  });
}
