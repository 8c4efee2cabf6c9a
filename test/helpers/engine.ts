import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { startFixtureLlm, type FixtureLlm, type FixtureOptions } from '../../fixtures/llm/index.ts';
import { engineConfig, MODEL } from './llm.ts';
import { newSession, startTestServer, tempHome, type TestServer, type WsClient } from './server.ts';

// Retries back off instantly in tests (the engine reads this when the server starts).
process.env.SVC_CODE_RETRY_BASE_MS = '0';

export { engineConfig, MODEL };

/** The permission mode that runs every tool call without asking. */
export const YOLO = 'default_permission_mode = "yolo"';

export interface EngineEnv {
  s: TestServer;
  llm: FixtureLlm;
  sid: string;
  ws: WsClient;
}

/**
 * A server configured against a fresh fixture LLM, one session, and a WS subscribed to it.
 * `fixture`: the fixture's models and (only for a known daemon defect being fixed) lenient rules.
 */
export async function startEngine(
  t: ExecutionContext, opts: { extraToml?: string; config?: string | null | ((llmUrl: string) => string); fixture?: FixtureOptions } = {},
): Promise<EngineEnv> {
  const llm = await startFixtureLlm(opts.fixture);
  const home = await tempHome();
  const config = opts.config === undefined ? engineConfig(llm.url, opts.extraToml) : typeof opts.config === 'function' ? opts.config(llm.url) : opts.config;
  if (config !== null) await writeFile(path.join(home, 'config.toml'), config);
  const s = await startTestServer({ home });
  const env: EngineEnv = { s, llm, sid: await newSession(s), ws: await s.ws() };
  t.teardown(async () => {
    await env.ws.close();
    await env.s.stop();
    await llm.close();
  });
  await env.ws.request('subscribe', { session_ids: [env.sid] });
  return env;
}

export const text = (t: string) => [{ type: 'text', text: t }];

export function prompt(env: Pick<EngineEnv, 's' | 'sid'>, body: Record<string, unknown> | string) {
  return env.s.post(`/api/v1/sessions/${env.sid}/prompts`, typeof body === 'string' ? { content: text(body) } : body);
}

/** Waits for the nth (1-based) `turn.ended` frame of the session. */
export function turnEnded(env: EngineEnv, n = 1, timeoutMs = 30_000): Promise<any> {
  return env.ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === env.sid && env.ws.frames.filter((x) => x.type === 'turn.ended' && x.session_id === env.sid).indexOf(f) === n - 1, timeoutMs);
}

/** The session's journal, oldest first. */
export async function journal(env: Pick<EngineEnv, 's' | 'sid'>): Promise<Array<{ type: string; seq: number; payload: any }>> {
  return env.s.eventsOf(env.sid);
}

export const types = (events: Array<{ type: string }>) => events.map((e) => e.type);
