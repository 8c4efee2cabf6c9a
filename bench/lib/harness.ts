import { fork } from 'node:child_process';
import path from 'node:path';
import { profileArgs, ROOT, stopChild } from './daemon.ts';
import { BENCH_TOKEN } from './http.ts';
import type { Scope } from './lifecycle.ts';

export interface StreamHead {
  epoch: string;
  seq: number;
}

export interface Harness {
  baseUrl: string;
  pid: number;
  /** Appends `count` durable events to `stream`; resolves with the child's own append time and the new head. */
  append(stream: string, count: number, opts: { batch: number; inflight: number }): Promise<{ ms: number; head: StreamHead }>;
  head(stream: string): Promise<StreamHead | null>;
}

/** Forks bench/lib/server-child.ts: a real server in its own process, with journal access over IPC; stopped with the scope. */
export async function startHarness(scope: Scope, home: string): Promise<Harness> {
  const child = fork(path.join(ROOT, 'bench/lib/server-child.ts'), [], {
    cwd: ROOT,
    execArgv: [...profileArgs(), '--import', 'tsx'],
    env: { ...process.env, SVC_CODE_HOME: home, SVC_CODE_SERVER_TOKEN: BENCH_TOKEN },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  scope.defer(() => stopChild(child));
  let nextId = 0;
  const pending = new Map<number, { resolve: (m: any) => void; reject: (e: Error) => void }>();
  const ready = new Promise<string>((resolve, reject) => {
    child.on('message', (m: any) => {
      if (m.ready) return resolve(m.baseUrl);
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m);
    });
    child.once('exit', (code) => {
      const err = new Error(`server child exited with ${code}`);
      reject(err);
      for (const p of pending.values()) p.reject(err);
    });
  });
  const call = (msg: object): Promise<any> => new Promise((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { resolve, reject });
    child.send({ id, ...msg });
  });
  const baseUrl = await ready;
  return {
    baseUrl,
    pid: child.pid!,
    append: (stream, count, o) => call({ op: 'append', stream, count, ...o }),
    head: async (stream) => (await call({ op: 'head', stream })).head,
  };
}
