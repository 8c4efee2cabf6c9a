import { spawn } from 'node:child_process';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';

/** Where launchers come from: the daemon's environment and platform (passed in, so tests can vary them). */
export interface LaunchEnv {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

/** A launcher still running after this long has started the application: it is left running, detached. */
export const LAUNCH_GRACE_MS = 2_000;
const STDERR_TAIL = 500;

export function launchFailed(reason: string, details: Record<string, unknown> = {}): ApiError {
  return new ApiError(Codes.INTERNAL, `application launch failed: ${reason}`, { details: { reason, ...details } });
}

/** The platform's "open with the default application" command; 50001 when there is no desktop to open on. */
export function desktopOpener(le: LaunchEnv): string[] {
  if (le.platform === 'darwin') return ['open'];
  if (le.platform === 'win32') return ['explorer.exe'];
  if (!le.env.DISPLAY && !le.env.WAYLAND_DISPLAY) throw launchFailed('no desktop session (neither DISPLAY nor WAYLAND_DISPLAY is set)');
  return ['xdg-open'];
}

/** Splits a configured command line into argv: whitespace separates, quotes group, backslash escapes. */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && quote !== "'" && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (quote) {
      if (c === quote) quote = null;
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/**
 * Fills `{path}`, `{dir}` and `{line}` in a configured command; without any
 * placeholder the path is appended as the last argument.
 */
export function fillCommand(template: string, vars: { path: string; dir: string; line: number }): string[] {
  const argv = splitCommand(template);
  const used = argv.some((a) => /\{(path|dir|line)\}/.test(a));
  const filled = argv.map((a) => a.replace(/\{path\}/g, vars.path).replace(/\{dir\}/g, vars.dir).replace(/\{line\}/g, String(vars.line)));
  return used ? filled : [...filled, vars.path];
}

/**
 * Starts `argv` detached and answers fast: rejects with 50001 when the
 * program is missing or exits non-zero within the grace period, resolves when
 * it exits 0 or is still running then (a GUI app that does not fork).
 */
export function launch(argv: string[], le: LaunchEnv, graceMs = LAUNCH_GRACE_MS): Promise<void> {
  if (!argv.length) return Promise.reject(launchFailed('empty command'));
  return new Promise((resolve, reject) => {
    let stderr = '';
    const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: le.env });
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-STDERR_TAIL)));
    const timer = setTimeout(() => {
      child.removeAllListeners();
      // The request is answered; a later error of the detached app has no one to report to.
      child.on('error', () => undefined);
      child.stderr!.destroy();
      child.unref();
      resolve();
    }, graceMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(launchFailed(missing ? `${argv[0]} not found` : `${argv[0]}: ${err.message}`, { command: argv[0] }));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const how = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
      reject(launchFailed(`${argv[0]} ${how}${stderr.trim() ? `: ${stderr.trim()}` : ''}`, { command: argv[0], exit_code: code }));
    });
  });
}
