import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import { RUNTIMES } from '../sessions/info.ts';
import { findSession, type SessionLookup } from '../sessions/lookup.ts';
import type { WorkspaceDirsDeps } from '../workspaces/add-dir.ts';
import { confine } from './confine.ts';
import { toWire } from './entry.ts';

/** What the session file routes read: the session, then the roots it may touch. */
export type SessionFsDeps = SessionLookup & WorkspaceDirsDeps;

/** A confined session path: absolute form, wire form (`/`-separated, `.` for the root) and its allowed root. */
export interface SessionPath {
  abs: string;
  wire: string;
  root: string;
}

/** 40420 for any runtime but the local one (the only runtime this server hosts). */
export function checkRuntime(runtimeId: string | undefined): void {
  const id = runtimeId ?? 'local';
  if (!(RUNTIMES as readonly string[]).includes(id)) {
    throw new ApiError(Codes.RUNTIME_NOT_FOUND, `runtime not found: ${id}`, { details: { runtime_id: id, known: RUNTIMES } });
  }
}

/** The session (40401) after the runtime check (40420). */
export function fsSession(deps: SessionLookup, sessionId: string, runtimeId: string | undefined): SessionRecord {
  const s = findSession(deps, sessionId);
  checkRuntime(runtimeId);
  return s;
}

/** Confines one client path (41304 outside the workspace and its additional dirs). */
export async function resolvePath(deps: WorkspaceDirsDeps, s: SessionRecord, given: string): Promise<SessionPath> {
  const c = await confine(deps, s, given);
  return { abs: c.abs, wire: toWire(c.rel), root: c.root };
}
