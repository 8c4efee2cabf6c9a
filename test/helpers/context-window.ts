import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { startResponder, type Asked } from '../../fixtures/llm/responder.ts';
import type { FixtureLlm, Reply } from '../../fixtures/llm/index.ts';
import { fixtureLlm } from './llm.ts';
import { newSession, startTestServer, tempHome, type TestServer, type WsClient } from './server.ts';

// Shared by the context-window tests (test/engine/context-*.test.ts, compaction-content.test.ts): a session on a
// small-window model whose replies are chosen per request (fixtures/llm/responder.ts), against the strict fixture
// keeping the provider's window rule.

process.env.SVC_CODE_RETRY_BASE_MS = '0';

export type WindowProtocol = 'chat' | 'messages';

export const PROTOCOLS: WindowProtocol[] = ['chat', 'messages'];
const PROVIDER_TYPE: Record<WindowProtocol, string> = { chat: 'chat_compat', messages: 'messages_api' };

export const ALIAS = 'ctx';
export const UPSTREAM = 'ctx-model';

export interface WindowEnv {
  s: TestServer;
  llm: FixtureLlm;
  sid: string;
  ws: WsClient;
}

export interface WindowOptions {
  protocol: WindowProtocol;
  /** The model's context window (max_context_size, and the fixture's window for the upstream model). */
  window: number;
  /** loop_control.reserved_context_size, when set. */
  reserve?: number;
  respond: (a: Asked) => Reply;
  /** More config.toml (top-level keys and tables). */
  extraToml?: string;
}

export function windowConfig(url: string, o: Pick<WindowOptions, 'protocol' | 'window' | 'reserve' | 'extraToml'>): string {
  return `default_model = "${ALIAS}"
auto_session_title = false
default_permission_mode = "yolo"
${o.extraToml ?? ''}
${o.reserve !== undefined ? `[loop_control]\nreserved_context_size = ${o.reserve}\n` : ''}
[providers.fx]
type = "${PROVIDER_TYPE[o.protocol]}"
base_url = "${url}/v1"
api_key = "sk-test"

[models."${ALIAS}"]
provider = "fx"
model = "${UPSTREAM}"
max_context_size = ${o.window}
`;
}

/** The provider's own answer to a request of `input` tokens over `window` (Anthropic messages, OpenAI chat completions). */
export function overflowReply(protocol: WindowProtocol, window: number, input = window + 1): Reply {
  if (protocol === 'messages') return { kind: 'error', status: 400, message: `prompt is too long: ${input} tokens > ${window} maximum` };
  return {
    kind: 'error', status: 400, code: 'context_length_exceeded',
    message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${input} tokens. Please reduce the length of the messages.`,
  };
}

/** A server on a `window`-token model behind a responder, one session, and a WS subscribed to it. */
export async function windowSession(t: ExecutionContext, o: WindowOptions): Promise<WindowEnv> {
  // The fixture refuses a request over the window with the provider's own answer (its count, not the daemon's).
  const llm = await fixtureLlm(t, { models: { [UPSTREAM]: { context_window: o.window } } });
  const front = await startResponder(llm, o.respond);
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), windowConfig(front.url, o));
  const s = await startTestServer({ home });
  const env: WindowEnv = { s, llm, sid: await newSession(s), ws: await s.ws() };
  t.teardown(async () => {
    await env.ws.close();
    await env.s.stop();
    await front.close();
  });
  await env.ws.request('subscribe', { session_ids: [env.sid] });
  return env;
}

/** Sends the prompts one after another, each after the last turn ended; returns every main turn.ended payload. */
export async function runTurns(env: WindowEnv, prompts: string[], timeoutMs = 60_000): Promise<any[]> {
  const isEnd = (f: any) => f.type === 'turn.ended' && f.session_id === env.sid && f.payload.agent_id === 'main';
  for (const p of prompts) {
    const before = env.ws.frames.filter(isEnd).length;
    const r = await env.s.post(`/api/v1/sessions/${env.sid}/prompts`, { content: [{ type: 'text', text: p }] });
    if (r.code !== 0) throw new Error(`prompt refused: ${JSON.stringify(r)}`);
    await env.ws.waitFor((f) => isEnd(f) && env.ws.frames.filter(isEnd).indexOf(f) === before, timeoutMs);
  }
  return env.ws.frames.filter(isEnd).map((f) => f.payload);
}

export async function journalOf(env: WindowEnv): Promise<Array<{ type: string; seq: number; payload: any }>> {
  return env.s.eventsOf(env.sid);
}

/** Everything a recorded request sent as messages (and system), as one string. */
export const sentText = (body: any): string => JSON.stringify([body?.system ?? '', body?.messages ?? []]);
