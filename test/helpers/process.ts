import { fetchNamed } from './wait.ts';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { daemonEnv, launch, ROOT, type Launched } from './built.ts';
import { TEST_TOKEN } from './wire.ts';

/** Starts `svc-code serve` from the sources as a real child process and waits for its "listening on" line. */
export function spawnDaemon(home: string, args: string[] = ['--port', '0'], env: Record<string, string> = {}): Promise<Launched> {
  const argv = [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve', ...args];
  return launch(argv, { cwd: ROOT, env: daemonEnv(home, { SVC_CODE_CHECK_EVENTS: '1', ...env }), listenMs: 20_000 });
}

export function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export async function api(baseUrl: string, method: string, url: string, body?: unknown) {
  const res = await fetchNamed(baseUrl + url, {
    method,
    headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json() as Promise<any>;
}
