import { fork } from 'node:child_process';
import path from 'node:path';
import { startFixtureLlm, type FixtureLlm, type Reply } from '../../fixtures/llm/index.ts';
import { ROOT, stopChild } from './daemon.ts';
import type { Scope } from './lifecycle.ts';

/** The fixture LLM running in its own process (bench/lib/fixture-child.ts). */
export interface RemoteLlm {
  url: string;
  /** The fixture's process: the bench's own when `inProcess`. */
  pid: number;
  setScript(...replies: Reply[]): Promise<void>;
  /** Every request so far: its last message's text and its arrival (epoch ms). */
  arrivals(): Promise<Array<[string, number]>>;
}

export async function startRemoteLlm(scope: Scope): Promise<RemoteLlm> {
  const child = fork(path.join(ROOT, 'bench/lib/fixture-child.ts'), [], {
    cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  scope.defer(() => stopChild(child));
  let nextId = 0;
  const pending = new Map<number, (m: any) => void>();
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (m: any) => {
      if (m.ready) return resolve(m.url);
      pending.get(m.id)?.(m);
      pending.delete(m.id);
    });
    child.once('exit', (code) => reject(new Error(`fixture child exited with ${code}`)));
  });
  const call = (msg: object): Promise<any> => new Promise((resolve) => {
    const id = ++nextId;
    pending.set(id, resolve);
    child.send({ id, ...msg });
  });
  return {
    url,
    pid: child.pid!,
    setScript: async (...replies) => void (await call({ op: 'script', replies })),
    arrivals: async () => (await call({ op: 'arrivals' })).arrivals,
  };
}

/** The old arrangement, for comparison: the fixture on the benchmark process's event loop. */
export async function startInProcessLlm(scope: Scope): Promise<RemoteLlm> {
  const llm = await startFixtureLlm();
  scope.defer(() => llm.close());
  const arrivals = recordArrivals(llm);
  return { url: llm.url, pid: process.pid, setScript: async (...r) => llm.setScript(...r), arrivals: async () => arrivals };
}

/**
 * From now on, every request the fixture takes: the text of its last message (each timed prompt
 * has a unique one) and when it arrived (epoch ms, comparable across processes).
 */
export function recordArrivals(llm: FixtureLlm): Array<[string, number]> {
  const arrivals: Array<[string, number]> = [];
  const push = llm.requests.push.bind(llm.requests);
  llm.requests.push = (...rs) => {
    const at = performance.timeOrigin + performance.now();
    for (const r of rs) arrivals.push([lastText(r.body), at]);
    return push(...rs);
  };
  return arrivals;
}

/** The text of a chat request's last message (each timed prompt has a unique one). */
export function lastText(body: any): string {
  const last = body?.messages?.at(-1)?.content;
  return typeof last === 'string' ? last : Array.isArray(last) ? last.map((p: any) => p.text ?? '').join('') : '';
}
