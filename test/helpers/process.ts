import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_TOKEN } from './wire.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface DaemonProcess {
  child: ChildProcess;
  baseUrl: string;
  stdout: () => string;
  stderr: () => string;
}

/** Starts `svc-code serve` as a real child process and waits for its "listening on" line. */
export async function spawnDaemon(home: string, args: string[] = ['--port', '0'], env: Record<string, string> = {}): Promise<DaemonProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, SVC_CODE_HOME: home, SVC_CODE_SERVER_TOKEN: TEST_TOKEN, SVC_CODE_LOG_LEVEL: 'warn', SVC_CODE_CHECK_EVENTS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start: ${out} ${err}`)), 20_000);
    child.stdout!.on('data', () => {
      const m = /listening on (\S+)/.exec(out);
      if (m && /access token: \S+/.test(out)) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`daemon exited ${code}: ${err}`)));
  });
  return { child, baseUrl, stdout: () => out, stderr: () => err };
}

export function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export async function api(baseUrl: string, method: string, url: string, body?: unknown) {
  const res = await fetch(baseUrl + url, {
    method,
    headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json() as Promise<any>;
}
