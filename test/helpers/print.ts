import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FixtureLlm } from '../../fixtures/llm/index.ts';
import { buildScript, daemonEnv, launch, ROOT, startScriptArgv, type Launched } from './built.ts';
import { scratchDir } from './fs.ts';
import { engineConfig, fixtureLlm } from './llm.ts';
import { TEST_TOKEN, type Envelope } from './wire.ts';

/** The built command as users run it: the package's bin (its shebang starts node with the start script's flags). */
export const BIN = path.join(ROOT, 'bin/svc-code.js');

/** dist/ built as `npm ci` builds it, when the sources changed since (call from test.before). */
export function buildOnce(): void {
  const built = buildScript('--if-stale');
  if (built.status !== 0) throw new Error(`the build failed:\n${built.stderr}`);
}

export interface PrintEnv {
  home: string;
  /** The directory the runs start in (their workspace). */
  root: string;
  llm: FixtureLlm;
}

type T = { teardown(fn: () => unknown): void };

/** A fresh home whose config.toml aims at a fixture LLM (`extra` lines added), and a fresh project directory. */
export async function printEnv(t: T, extra = ''): Promise<PrintEnv> {
  const llm = await fixtureLlm(t);
  const home = await scratchDir(t, 'svc-code-print-home-');
  const root = await scratchDir(t, 'svc-code-print-ws-');
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url, extra));
  return { home, root, llm };
}

export interface PrintOptions {
  /** Written to standard input, then closed; a number is a file descriptor to read it from; absent: /dev/null. */
  stdin?: string | number;
  env?: Record<string, string>;
  cwd?: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code, or the signal's name. */
  exited: Promise<number | string>;
}

/** Print mode's own default (src/cli/print/run.ts): the daemon's JSON log lines only for errors; a test's `env` may raise it. */
const PRINT_LOG_LEVEL = 'error';

/** Starts `svc-code <args>` in `env.root` (or `opts.cwd`) on `env.home`. */
export function spawnPrint(env: Pick<PrintEnv, 'home' | 'root'>, args: string[], opts: PrintOptions = {}): Running {
  const stdin = typeof opts.stdin === 'number' ? opts.stdin : opts.stdin === undefined ? 'ignore' : 'pipe';
  const child = spawn(BIN, args, { cwd: opts.cwd ?? env.root, env: daemonEnv(env.home, { SVC_CODE_LOG_LEVEL: PRINT_LOG_LEVEL, ...opts.env }), stdio: [stdin, 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  if (typeof opts.stdin === 'string') child.stdin!.end(opts.stdin);
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs `svc-code <args>` to its end: exit code, stdout, stderr. */
export async function runPrint(env: Pick<PrintEnv, 'home' | 'root'>, args: string[], opts: PrintOptions = {}): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const r = spawnPrint(env, args, opts);
  const code = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

/** stdout of `--output-format stream-json` as its JSON lines. */
export const jsonLines = (stdout: string): any[] => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));

/** A daemon on the home, started as `npm start` does (its reconcile with other processes on the home every 200 ms). */
export async function startDaemon(t: T, env: Pick<PrintEnv, 'home' | 'root'>): Promise<Launched & { get<D = any>(url: string): Promise<Envelope<D>>; post<D = any>(url: string, body: unknown): Promise<Envelope<D>> }> {
  const daemon = await launch([...startScriptArgv(), '--host', '127.0.0.1', '--port', '0'], {
    cwd: env.root, env: daemonEnv(env.home, { SVC_CODE_RECONCILE_INTERVAL_MS: '200' }),
  });
  t.teardown(() => daemon.stop());
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(daemon.baseUrl + url, {
      method, headers: { Authorization: `Bearer ${TEST_TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json() as Promise<Envelope>;
  };
  return { ...daemon, get: (url) => call('GET', url), post: (url, body) => call('POST', url, body) };
}
