import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import { childEnv } from '../lib/child-env.ts';


async function isExecutableFile(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function lookPath(name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (await isExecutableFile(file)) return file;
  }
  return null;
}

/**
 * The shell to run: `given` (an absolute path, or a command name looked up in
 * PATH) must be an executable file (40001 otherwise); by default $SHELL, else
 * /bin/bash, else /bin/sh.
 */
export async function resolveShell(given: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  if (given !== undefined) {
    const bad = (message: string) => validationError([{ field: 'shell', message }]);
    if (!path.isAbsolute(given) && given.includes('/')) throw bad('must be an absolute path or a command name');
    const file = path.isAbsolute(given) ? given : await lookPath(given, env);
    if (!file || !(await isExecutableFile(file))) throw bad(`not an executable file: ${given}`);
    return file;
  }
  for (const candidate of [env.SHELL, '/bin/bash', '/bin/sh']) {
    if (candidate && path.isAbsolute(candidate) && (await isExecutableFile(candidate))) return candidate;
  }
  throw new ApiError(Codes.INTERNAL, 'no usable shell: $SHELL, /bin/bash and /bin/sh are all missing');
}

/** The shell's environment: the daemon's, minus its secrets, with a terminal type and the working directory. */
export function shellEnv(base: NodeJS.ProcessEnv, cwd: string): Record<string, string> {
  const env = childEnv({}, base);
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  // A stale PWD (the daemon's) would make the shell's `pwd` lie until the first cd.
  env.PWD = cwd;
  return env;
}
