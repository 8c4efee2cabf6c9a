import { execFile, spawn } from 'node:child_process';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { childEnv } from '../../lib/child-env.ts';

export const GIT_TIMEOUT_MS = 15_000;
const MAX_BUFFER = 64 * 2 ** 20;

/**
 * Read-only git: no optional locks (a status must not fight the user's own git
 * for index.lock), no prompts, pathspecs taken literally (a file named `*.ts`
 * is that file), messages in English so they can be recognised.
 */
function gitEnv(): NodeJS.ProcessEnv {
  return childEnv({ GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1', LC_ALL: 'C' });
}

const BASE_ARGS = ['-c', 'core.quotepath=off', '-c', 'color.ui=false'];

export interface GitOutput {
  stdout: string;
  code: number;
}

export function unavailable(reason: string, root: string, message: string): ApiError {
  return new ApiError(Codes.GIT_UNAVAILABLE, message, { details: { reason, root } });
}

/** Runs git in `cwd`; exit codes in `okCodes` resolve, others reject with the stderr text. */
export function git(cwd: string, args: string[], okCodes: number[] = [0]): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    execFile('git', [...BASE_ARGS, ...args], { cwd, env: gitEnv(), timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_BUFFER, encoding: 'utf8' }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: string | number; killed?: boolean }) | null;
      if (e?.code === 'ENOENT') return reject(unavailable('git_not_found', cwd, 'git is not installed or not on PATH'));
      if (e?.killed) return reject(new ApiError(Codes.INTERNAL, `git ${args[0]} timed out after ${GIT_TIMEOUT_MS} ms`));
      const code = e ? (typeof e.code === 'number' ? e.code : 1) : 0;
      if (!okCodes.includes(code)) return reject(new Error(`git ${args[0]} failed (exit ${code}): ${String(stderr).trim()}`));
      resolve({ stdout, code });
    });
  });
}

export interface Repo {
  /** The directory git ran in. */
  cwd: string;
  /** Path of `cwd` inside the repository (`sub/dir/`, or `` at the top). */
  prefix: string;
  /** HEAD's commit, or the empty tree when nothing is committed yet (a diff base either way). */
  base: string;
  hasHead: boolean;
}

const EMPTY_TREE: Record<string, string> = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

/** The repository holding `cwd`; 40908 when git is missing or `cwd` is not in a work tree. */
export async function openRepo(cwd: string): Promise<Repo> {
  let out: string;
  try {
    out = (await git(cwd, ['rev-parse', '--is-inside-work-tree', '--show-prefix', '--show-object-format'])).stdout;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw unavailable('not_a_repository', cwd, `not a git repository: ${cwd}`);
  }
  const [inside, prefix = '', format = 'sha1'] = out.split('\n');
  if (inside !== 'true') throw unavailable('not_a_repository', cwd, `not inside a git work tree: ${cwd}`);
  const head = await git(cwd, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], [0, 1]);
  const hasHead = head.code === 0;
  return { cwd, prefix, hasHead, base: hasHead ? head.stdout.trim() : (EMPTY_TREE[format] ?? EMPTY_TREE.sha1) };
}

/**
 * Runs git and keeps at most `cap` bytes of its output, stopping it beyond
 * that (a diff of a huge file must not be buffered whole).
 */
export function gitCapped(cwd: string, args: string[], cap: number, okCodes: number[] = [0]): Promise<{ out: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...BASE_ARGS, ...args], { cwd, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let stderr = '';
    const timer = setTimeout(() => child.kill(), GIT_TIMEOUT_MS);
    child.stdout.on('data', (c: Buffer) => {
      if (truncated) return;
      chunks.push(c);
      size += c.length;
      if (size > cap) {
        truncated = true;
        child.kill();
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4096)));
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(err.code === 'ENOENT' ? unavailable('git_not_found', cwd, 'git is not installed or not on PATH') : err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const out = Buffer.concat(chunks);
      if (truncated) return resolve({ out: out.subarray(0, cap), truncated });
      if (code === null) return reject(new ApiError(Codes.INTERNAL, `git ${args[0]} timed out after ${GIT_TIMEOUT_MS} ms`));
      if (!okCodes.includes(code)) return reject(new Error(`git ${args[0]} failed (exit ${code}): ${stderr.trim()}`));
      resolve({ out, truncated });
    });
  });
}
