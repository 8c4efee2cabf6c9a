import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import { additionalDirs, type WorkspaceDirsDeps } from '../workspaces/add-dir.ts';

/** A path proven to stay inside the session's workspace or one of its additional dirs. */
export interface ConfinedPath {
  /** Absolute path as given (symlinks not resolved). */
  abs: string;
  /** Path relative to the workspace root (`.` for the root); absolute when in an additional dir. */
  rel: string;
  /** The allowed root that contains it. */
  root: string;
}

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Real path of `p`, or of its deepest existing ancestor joined with the rest. */
async function realOrAncestor(p: string): Promise<string> {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return path.join(await realpath(cur), ...rest.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

export function escapeError(given: string): ApiError {
  return new ApiError(Codes.PATH_ESCAPE, `path escapes the session directory: ${given}`, { details: { path: given } });
}

/** The roots a session may touch: its workspace root, then the workspace's additional dirs. */
export async function allowedRoots(deps: WorkspaceDirsDeps, s: SessionRecord): Promise<string[]> {
  return [s.cwd, ...(await additionalDirs(deps, s.workspace_id))];
}

/** Confines one path after another against roots resolved once (`confiner`). */
export type Confine = (given: string) => Promise<ConfinedPath>;

/**
 * Resolves a client path (relative to the session's root, or absolute inside an
 * allowed root) and refuses with 41304 anything that leads outside: `..`,
 * absolute paths elsewhere, and symlinks whose target is outside.
 */
export async function confine(deps: WorkspaceDirsDeps, s: SessionRecord, given: string): Promise<ConfinedPath> {
  return (await confiner(deps, s))(given);
}

/**
 * `confine` for many paths: the allowed roots are listed once, their real paths resolved once (on the first
 * path inside a root), instead of per path.
 */
export async function confiner(deps: WorkspaceDirsDeps, s: SessionRecord): Promise<Confine> {
  const roots = await allowedRoots(deps, s);
  let realRoots: Promise<string[]> | undefined;
  return async (given) => {
    const abs = path.resolve(s.cwd, given || '.');
    const root = roots.find((r) => inside(abs, r));
    if (!root) throw escapeError(given);
    const real = await realOrAncestor(abs);
    realRoots ??= Promise.all(roots.map((r) => realOrAncestor(r)));
    if (!(await realRoots).some((r) => inside(real, r))) throw escapeError(given);
    const rel = root === s.cwd ? path.relative(s.cwd, abs) || '.' : abs;
    return { abs, rel, root };
  };
}
