import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { defaultServeOptions } from '../../src/app/options.ts';
import { startServer, type RunningServer } from '../../src/app/server.ts';
import { readSettings } from '../../src/app/settings.ts';
import { ROOT } from './daemon.ts';
import { BENCH_TOKEN } from './http.ts';
import type { Scope } from './lifecycle.ts';

export const STDIO_FIXTURE = path.join(ROOT, 'fixtures/mcp/servers.mjs');
export const stdioServer = () => ({ transport: 'stdio', command: process.execPath, args: [STDIO_FIXTURE, 'stdio'] });

/** The daemon in this process (its parts reachable), with a user-level mcp.json and config.toml. */
export async function startMcpDaemon(scope: Scope, servers: Record<string, unknown>, configToml = ''): Promise<{ server: RunningServer; home: string; api: (method: string, url: string, body?: unknown) => Promise<any> }> {
  const home = await scope.tempDir('mcp-home');
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  await writeFile(path.join(home, 'config.toml'), configToml);
  process.env.SVC_CODE_SERVER_TOKEN = BENCH_TOKEN;
  const server = await startServer({ home, settings: readSettings(process.env), options: { ...defaultServeOptions(), port: 0 }, log: pino({ level: 'silent' }) });
  scope.defer(() => server.close());
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(server.baseUrl + url, { method, headers: { Authorization: `Bearer ${BENCH_TOKEN}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const env = await res.json() as { code: number; data: any };
    if (env.code !== 0) throw new Error(`${method} ${url}: ${JSON.stringify(env).slice(0, 300)}`);
    return env.data;
  };
  return { server, home, api };
}

/** VmRSS of a process in MB (Linux). */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round((Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024) * 10) / 10;
}
