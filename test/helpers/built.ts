import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './wait.ts';
import { TEST_TOKEN } from './wire.ts';

/** The package root of this checkout. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * package.json's `start` script as an argv (`node scripts/start.mjs serve`: the build check, then
 * dist/'s CLI in the same process), its script made absolute so the daemon can be started from any
 * working directory exactly as `npm start` runs it.
 */
export function startScriptArgv(root = ROOT): string[] {
  const { flags, entry, args } = startScript(root);
  return [process.execPath, ...flags, path.join(root, entry), ...args];
}

/** package.json's start script, `node [flags] <script> [args]`, in its parts. */
export function startScript(root = ROOT): { flags: string[]; entry: string; args: string[] } {
  const script = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start as string;
  const [node, ...rest] = script.split(/\s+/);
  const at = rest.findIndex((a) => !a.startsWith('-'));
  if (node !== 'node' || at < 0) throw new Error(`the start script is not \`node [flags] <script> ...\`: ${script}`);
  return { flags: rest.slice(0, at), entry: rest[at]!, args: rest.slice(at + 1) };
}

/** `node scripts/build.mjs <flag>` in `root`: its exit status and stderr. */
export function buildScript(flag: '--check' | '--if-stale', root = ROOT): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), flag], { cwd: root, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

/** The environment of a daemon child: its own home and the test token; no loader inherited from the test process. */
export function daemonEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_CODE_HOME: home, SVC_CODE_SERVER_TOKEN: TEST_TOKEN, SVC_CODE_LOG_LEVEL: 'warn', ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

export interface Launched {
  child: ChildProcess;
  /** The daemon's base URL from its "listening on" line. */
  baseUrl: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal) of the process started. */
  exited: Promise<number | string>;
  /** Sends `signal` to the whole process group (npm, its shell and the daemon alike) and waits for every member to go. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const LISTEN_MS = 120_000;

/**
 * Starts a command in a process group of its own and waits for the daemon's "listening on" line.
 * Rejects with everything the command printed when it exits first.
 */
export async function launch(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; listenMs?: number }): Promise<Launched> {
  const child = spawn(argv[0], argv.slice(1), { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line in ${opts.listenMs ?? LISTEN_MS} ms:\n${out}\n${err}`)), opts.listenMs ?? LISTEN_MS);
    child.stdout!.on('data', () => {
      const m = /listening on (\S+)/.exec(out);
      if (m && /access token: \S+/.test(out)) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    signalGroup(child, signal);
    const code = await exited;
    await groupGone(child);
    return code;
  };
  return { child, baseUrl, stdout: () => out, stderr: () => err, exited, stop };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/** npm exits before the daemon it started: wait for the whole group, then make sure. */
async function groupGone(child: ChildProcess, graceMs = 15_000): Promise<void> {
  const gone = () => {
    try {
      process.kill(-child.pid!, 0);
      return false;
    } catch {
      return true;
    }
  };
  await until(gone, graceMs, 'the process group to exit').catch(() => signalGroup(child, 'SIGKILL'));
}
