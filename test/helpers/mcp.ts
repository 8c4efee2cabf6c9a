import { writeFile } from 'node:fs/promises';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../protocol/schemas/mcp.ts';
import type { TestServer } from './server.ts';
import { until } from './wait.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The SDK-built stdio fixture server (fixtures/mcp/servers.mjs), started by `node` alone. */
export const STDIO_FIXTURE = path.join(ROOT, 'fixtures/mcp/servers.mjs');

export function stdioServer(env: Record<string, string> = {}, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { transport: 'stdio', command: process.execPath, args: [STDIO_FIXTURE, 'stdio'], ...(Object.keys(env).length ? { env } : {}), ...extra } as McpServerConfig;
}

/** Writes an mcp.json (`{mcpServers}`) at `file`. */
export async function writeMcpFile(file: string, servers: Record<string, unknown>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ mcpServers: servers }, null, 2));
}

/** Installs a plugin with an mcp.json under `<home>/plugins/<id>/`. */
export async function writePlugin(home: string, id: string, servers: Record<string, unknown>, manifest: Record<string, unknown> = {}): Promise<void> {
  const dir = path.join(home, 'plugins', id);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'plugin.json'), JSON.stringify({ name: id, ...manifest }));
  await writeMcpFile(path.join(dir, 'mcp.json'), servers);
}

/** Whether a process is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids a stdio fixture appended to its pid file. */
export async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

/**
 * Loads a session's runtime (a read, which starts no server) and starts its MCP servers as its first turn
 * would, without waiting for them.
 */
export async function startSessionServers(s: TestServer, sid: string): Promise<void> {
  const r = await s.get(`/api/v1/sessions/${sid}/status`);
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  void s.mcp.ready(sid);
}

/** Waits until the v1 list shows `name` in one of `statuses`. */
export async function serverStatus(s: TestServer, name: string, statuses = ['connected', 'error'], timeoutMs = 60_000): Promise<any> {
  return until(async () => {
    const r = await s.get('/api/v1/mcp/servers');
    const found = r.data?.servers?.find((x: any) => x.name === name);
    return found && statuses.includes(found.status) ? found : undefined;
  }, timeoutMs);
}

/** config.toml against the fixture LLM speaking the Anthropic Messages protocol, for a model that reads images. */
export function messagesApiConfig(llmUrl: string, extra = ''): string {
  return `default_model = "fx/model"
auto_session_title = false
${extra}

[providers.fx]
type = "messages_api"
base_url = "${llmUrl}/v1"
api_key = "sk-test"

[models."fx/model"]
provider = "fx"
model = "fixture-model"
max_context_size = 200000
capabilities = ["image_in", "tool_use"]
`;
}

/** A server whose home holds `mcp.json` (user level) and a config against a fresh fixture LLM, one session, a subscribed WebSocket. */
export async function startMcpEngine(
  t: import('ava').ExecutionContext, servers: Record<string, unknown>, extraToml = '', opts: { wire?: 'chat_compat' | 'messages_api' } = {},
): Promise<import('./engine.ts').EngineEnv & { home: string }> {
  const { startFixtureLlm } = await import('../../fixtures/llm/index.ts');
  const { tempHome, startTestServer } = await import('./server.ts');
  const { engineConfig } = await import('./engine.ts');
  const { newSession } = await import('./server.ts');
  const llm = await startFixtureLlm();
  const home = await tempHome();
  // Servers start on the first turn and wait for it: a loaded machine may take longer than the 30 s default.
  const extra = extraToml.includes('[mcp]') ? extraToml : `${extraToml}\n[mcp]\nstartup_timeout_ms = 120000\n`;
  await writeFile(path.join(home, 'config.toml'), opts.wire === 'messages_api' ? messagesApiConfig(llm.url, extra) : engineConfig(llm.url, extra));
  await writeMcpFile(path.join(home, 'mcp.json'), servers);
  const s = await startTestServer({ home });
  const env = { s, llm, sid: await newSession(s), ws: await s.ws(), home };
  t.teardown(async () => {
    await env.ws.close();
    await env.s.stop();
    await llm.close();
  });
  await env.ws.request('subscribe', { session_ids: [env.sid] });
  return env;
}
