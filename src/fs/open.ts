import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fsError } from './errors.ts';
import { desktopOpener, fillCommand, launch, launchFailed, type LaunchEnv } from './launch.ts';
import { fsSession, resolvePath, type SessionFsDeps } from './scope.ts';

export type OpenAppId = 'file_manager' | 'editor_a' | 'editor_b' | 'terminal_a' | 'terminal_b';

/** open-in applications are configured by environment: a command line with optional {path}, {dir}, {line}. */
export const OPEN_IN_ENV: Record<OpenAppId, string> = {
  file_manager: 'SVC_CODE_OPEN_FILE_MANAGER',
  editor_a: 'SVC_CODE_OPEN_EDITOR_A',
  editor_b: 'SVC_CODE_OPEN_EDITOR_B',
  terminal_a: 'SVC_CODE_OPEN_TERMINAL_A',
  terminal_b: 'SVC_CODE_OPEN_TERMINAL_B',
};

/** An existing confined path; `dir` is the path itself for a directory, else its parent. */
async function target(deps: SessionFsDeps, sessionId: string, body: { runtime_id?: string; path: string }) {
  const s = fsSession(deps, sessionId, body.runtime_id);
  const p = await resolvePath(deps, s, body.path);
  try {
    const isDir = (await stat(p.abs)).isDirectory();
    return { abs: p.abs, isDir, dir: isDir ? p.abs : path.dirname(p.abs) };
  } catch (err) {
    fsError(err, body.path);
  }
}

/** POST fs:open: the platform's default application (`line` cannot be passed to it and is ignored). */
export async function fsOpen(deps: SessionFsDeps, le: LaunchEnv, sessionId: string, body: { runtime_id?: string; path: string; line?: number }) {
  const t = await target(deps, sessionId, body);
  await launch([...desktopOpener(le), t.abs], le);
  return { opened: true as const };
}

/** POST fs:reveal: opens the folder containing the path (macOS selects it in Finder). */
export async function fsReveal(deps: SessionFsDeps, le: LaunchEnv, sessionId: string, body: { runtime_id?: string; path: string }) {
  const t = await target(deps, sessionId, body);
  const opener = desktopOpener(le);
  await launch(le.platform === 'darwin' ? [...opener, '-R', t.abs] : [...opener, path.dirname(t.abs)], le);
  return { revealed: true as const };
}

/**
 * POST fs:open-in: the command configured for `app_id`. An unconfigured
 * file_manager falls back to the platform opener on the directory; the
 * others are 50001 until configured.
 */
export async function fsOpenIn(
  deps: SessionFsDeps, le: LaunchEnv, sessionId: string,
  body: { runtime_id?: string; app_id: OpenAppId; path: string; line?: number },
) {
  const t = await target(deps, sessionId, body);
  const variable = OPEN_IN_ENV[body.app_id];
  const template = le.env[variable]?.trim();
  if (!template) {
    if (body.app_id !== 'file_manager') throw launchFailed(`application not configured: set ${variable}`, { app_id: body.app_id, env: variable });
    await launch([...desktopOpener(le), t.dir], le);
    return { opened: true as const };
  }
  await launch(fillCommand(template, { path: t.abs, dir: t.dir, line: body.line ?? 1 }), le);
  return { opened: true as const };
}
