import { fetchNamed } from './wait.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureLlm, type FixtureLlm } from '../../fixtures/llm/index.ts';
import { buildScript, daemonEnv, launch, startScriptArgv, type Launched } from './built.ts';
import { tempDir } from './fs.ts';
import { engineConfig } from './llm.ts';
import { connectWs, TEST_TOKEN, type Envelope, type WsClient } from './wire.ts';

/**
 * The built daemon as users run it, for the smoke suite: dist/ built as `npm ci` builds it (the
 * same script, run only when the sources changed), started with package.json's start command from
 * an unrelated working directory, on loopback, with a fresh home whose config aims at the fixture
 * LLM and a model directory URL nothing answers (offline).
 */
export interface Smoke {
  daemon: Launched;
  baseUrl: string;
  home: string;
  /** A directory registered as a workspace by the checks that need one. */
  root: string;
  llm: FixtureLlm;
  /** JSON request with the bearer token (`auth: false` sends none). */
  req<T = any>(method: string, url: string, body?: unknown, opts?: { auth?: boolean }): Promise<{ status: number; body: Envelope<T> }>;
  /** One WebSocket for the run, connected on first use. */
  ws(): Promise<WsClient>;
  /** The workspace and session the checks share, created through the API on first use. */
  workspace(): Promise<string>;
  session(): Promise<string>;
  cleanup(): Promise<void>;
}

/** A loopback URL nothing listens on: fetching it fails at once, as with no network. */
async function deadUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `http://127.0.0.1:${port}/api.json`;
}

export async function startSmoke(): Promise<Smoke> {
  const built = buildScript('--if-stale');
  if (built.status !== 0) throw new Error(`the build failed:\n${built.stderr}`);
  const llm = await startFixtureLlm();
  const home = await tempDir('svc-code-smoke-home-');
  const root = await tempDir('svc-code-smoke-ws-');
  const elsewhere = await tempDir('svc-code-smoke-cwd-');
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url, 'default_permission_mode = "manual"'));
  const daemon = await launch([...startScriptArgv(), '--host', '127.0.0.1', '--port', '0'], {
    cwd: elsewhere,
    env: daemonEnv(home, { SVC_CODE_MODEL_DIRECTORY_URL: await deadUrl() }),
    listenMs: 30_000,
  });
  const baseUrl = daemon.baseUrl;
  const req: Smoke['req'] = async (method, url, body, opts = {}) => {
    const res = await fetchNamed(baseUrl + url, {
      method,
      headers: { ...(opts.auth === false ? {} : { Authorization: `Bearer ${TEST_TOKEN}` }), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const once = <T>(make: () => Promise<T>) => {
    let p: Promise<T> | undefined;
    return () => (p ??= make());
  };
  const ok = async (method: string, url: string, body?: unknown) => {
    const r = await req(method, url, body);
    if (r.body?.code !== 0) throw new Error(`${method} ${url}: ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  let socket: WsClient | undefined;
  const ws = once(async () => (socket = await connectWs(baseUrl, undefined, { Authorization: `Bearer ${TEST_TOKEN}` })));
  const workspace = once(async () => (await ok('POST', '/api/v1/workspaces', { root })).id as string);
  const session = once(async () => (await ok('POST', '/api/v1/sessions', { workspace_id: await workspace() })).id as string);
  return {
    daemon, baseUrl, home, root, llm, req, ws, workspace, session,
    cleanup: async () => {
      await socket?.close();
      if (daemon.child.exitCode === null && daemon.child.signalCode === null) await daemon.stop('SIGKILL');
      await llm.close();
      for (const dir of [home, root, elsewhere]) await rm(dir, { recursive: true, force: true });
    },
  };
}
