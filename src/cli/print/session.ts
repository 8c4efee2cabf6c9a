import type { SessionIndex, SessionRecord } from '../../../projections/session-index/session-index.ts';
import type { Instances } from '../../app/instances.ts';
import { createSession, type SessionCommandDeps } from '../../sessions/commands.ts';
import { UsageError } from './args.ts';

/** A session print mode cannot run in, for a reason that is not the command line's (exit status 1). */
export class SessionUnavailable extends Error {}

/** The session a print run continues (`--session`, `--continue`), or undefined for a new one. */
export function findResumed(deps: { sessions: SessionIndex; instances: Pick<Instances, 'baseUrlOf'> }, o: { sessionId?: string; continueLast: boolean; cwd: string }): SessionRecord | undefined {
  let s: SessionRecord | undefined;
  if (o.sessionId !== undefined) {
    s = deps.sessions.get(o.sessionId);
    if (!s) throw new UsageError(`no such session on this home: ${o.sessionId}`);
  } else if (o.continueLast) {
    s = lastOf(deps.sessions, o.cwd);
    if (!s) throw new UsageError(`no session to continue in ${o.cwd}`);
  }
  if (s?.foreign) {
    const url = deps.instances.baseUrlOf(s.foreign.server_id);
    throw new SessionUnavailable(`session ${s.id} is held by ${url ? `the svc-code daemon at ${url}` : 'another svc-code process on this home'}; `
      + 'continue it there, or stop that process first (docs/multi-instance.md)');
  }
  return s;
}

/** The newest session (by `updated_at`) whose directory is `cwd`, archived ones left out. */
function lastOf(sessions: SessionIndex, cwd: string): SessionRecord | undefined {
  let best: SessionRecord | undefined;
  for (const s of sessions.all()) {
    if (s.cwd !== cwd || s.archived) continue;
    if (!best || s.updated_at > best.updated_at) best = s;
  }
  return best;
}

/** A new session in `cwd`, the workspace registered on first use as POST /api/v1/sessions does. */
export async function newSession(deps: SessionCommandDeps, cwd: string): Promise<string> {
  return (await createSession(deps, { metadata: { cwd } })).id;
}
