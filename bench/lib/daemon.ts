import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_TOKEN } from './http.ts';
import type { Scope } from './lifecycle.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START_LIMIT_MS = 60_000;
const TAIL_BYTES = 16_384;

export interface Daemon {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** ms from spawn to the "listening on" line. */
  listeningMs: number;
  /** ms from spawn to the first 200 of GET /api/v1/healthz. */
  healthzMs: number;
  stop(): Promise<void>;
}

/** One GET /api/v1/healthz on a fresh connection; resolves with the HTTP status (0 on a socket error). */
function healthz(baseUrl: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(`${baseUrl}/api/v1/healthz`, { agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * Starts `svc-code serve --port 0` as `npm start` runs it (the built CLI entry in dist/, so run
 * `npm run build` first; BENCH_DAEMON_ENTRY points at another build, for A/B runs), a home from
 * SVC_CODE_HOME, the token from SVC_CODE_SERVER_TOKEN, and waits for the first healthy answer.
 * `extra.nodeArgs` go to node before the entry (`--heapsnapshot-signal=...`), `extra.serveArgs`
 * after `serve --port 0`.
 */
export function startDaemon(scope: Scope, home: string, env: Record<string, string> = {}, extra: { nodeArgs?: string[]; serveArgs?: string[] } = {}): Promise<Daemon> {
  const entry = process.env.BENCH_DAEMON_ENTRY ?? path.join(ROOT, 'dist/src/cli/main.js');
  return launch(scope, process.execPath, [...profileArgs(), ...startNodeFlags(), ...(extra.nodeArgs ?? []), entry, 'serve', '--port', '0', ...(extra.serveArgs ?? [])], home, env, false);
}

/**
 * The node flags of package.json's start script (`node --max-semi-space-size=8 --heap-growing-percent=50 scripts/start.mjs serve`);
 * BENCH_NODE_FLAGS (space-separated, may be empty) replaces them for A/B runs.
 */
export function startNodeFlags(): string[] {
  const override = process.env.BENCH_NODE_FLAGS;
  if (override !== undefined) return override.split(/\s+/).filter(Boolean);
  const script = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
  const words = script.split(/\s+/).slice(1);
  return words.slice(0, words.findIndex((w) => !w.startsWith('-')));
}

/**
 * Runs `npm start -- --port 0` itself in the package root (scripts/start.mjs: the build check,
 * then dist/'s CLI), in a process group of its own so the stop reaches the daemon under npm and sh.
 * `pid` is npm's.
 */
export function startWithNpm(scope: Scope, home: string, env: Record<string, string> = {}): Promise<Daemon> {
  return launch(scope, 'npm', ['start', '--', '--port', '0'], home, env, true);
}

async function launch(scope: Scope, command: string, args: string[], home: string, env: Record<string, string>, group: boolean): Promise<Daemon> {
  const t0 = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, SVC_CODE_HOME: home, SVC_CODE_SERVER_TOKEN: BENCH_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  const stop = () => stopChild(child, undefined, group);
  scope.defer(stop);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-TAIL_BYTES)));
  child.stderr!.on('data', (d) => (err = (err + d).slice(-TAIL_BYTES)));
  const { baseUrl, listeningMs } = await new Promise<{ baseUrl: string; listeningMs: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in ${START_LIMIT_MS} ms: ${err}`)), START_LIMIT_MS);
    const onData = () => {
      const m = /listening on (\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ baseUrl: m[1], listeningMs: performance.now() - t0 });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening: ${err}`));
    });
  });
  for (let i = 0; i < 1_000; i++) {
    if ((await healthz(baseUrl)) === 200) {
      return { child, pid: child.pid!, baseUrl, listeningMs, healthzMs: performance.now() - t0, stop };
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`daemon at ${baseUrl} never answered healthz 200`);
}

/** BENCH_CPU_PROF=<dir> makes every server process write a CPU profile there (on its SIGTERM exit); BENCH_CPU_PROF_INTERVAL_US sets its sampling interval. */
export function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  const interval = process.env.BENCH_CPU_PROF_INTERVAL_US;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...(interval ? [`--cpu-prof-interval=${interval}`] : [])] : [];
}

/** SIGTERM, then SIGKILL if it has not exited within 10 s; `group`: to the child's whole process group (it was spawned detached). */
export function stopChild(child: ChildProcess, graceMs = 10_000, group = false): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (group) process.kill(-child.pid!, sig);
      else child.kill(sig);
    } catch {
      // already gone
    }
  };
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => signal('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    signal('SIGTERM');
  });
  return group ? exited.then(() => groupGone(-child.pid!, graceMs)) : exited;
}

/** Waits until no process of the group is left (npm exits before the daemon it started). */
async function groupGone(pgid: number, graceMs: number): Promise<void> {
  const until = performance.now() + graceMs;
  for (;;) {
    try {
      process.kill(pgid, 0);
    } catch {
      return;
    }
    if (performance.now() > until) {
      process.kill(pgid, 'SIGKILL');
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
