import type { ExecutionContext } from 'ava';
import { startFixtureLlm, type FixtureLlm } from '../../fixtures/llm/index.ts';
import { journal, startEngine, YOLO, type EngineEnv } from './engine.ts';

// Shared by test/subagents*.test.ts: Agent tool calls in fixture scripts and what the fixture LLM saw.

export { YOLO };
export const agentCall = (id: string, args: Record<string, unknown>) => ({ events: [{ tool_call: { id, name: 'Agent', args } }] });
export const offered = (body: any): string[] => (body.tools ?? []).map((x: any) => x.function.name);
export const say = (text: string) => ({ events: [{ text }] });
export const userTexts = (body: any): string[] => body.messages.filter((m: any) => m.role === 'user')
  .map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map((p: any) => p.text).join('')));
export const toolResults = (body: any): string[] => body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
export const tasksUrl = (env: EngineEnv, rest = '') => `/api/v1/sessions/${env.sid}/tasks${rest}`;

/** The nth `turn.ended` of the main agent (subagents' turns end on the same stream). */
export const turnEnded = (env: EngineEnv, n = 1): Promise<any> => {
  const isMain = (f: any) => f.type === 'turn.ended' && f.session_id === env.sid && f.payload.agent_id === 'main';
  return env.ws.waitFor((f) => isMain(f) && env.ws.frames.filter(isMain).indexOf(f) === n - 1, 30_000);
};

export const resultOf = async (env: EngineEnv, id: string) => (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)?.payload;

/** A second fixture LLM serving the pool model `sub`, so a background subagent's requests do not race the main agent's. */
export async function withSubLlm(t: ExecutionContext, extra = '', mode = YOLO): Promise<{ env: EngineEnv; sub: FixtureLlm }> {
  const sub = await startFixtureLlm();
  t.teardown(() => sub.close());
  const env = await startEngine(t, { extraToml: `${mode}
${extra}
[secondary_model]
default_model = "sub"

[providers.fx2]
type = "chat_compat"
base_url = "${sub.url}/v1"
api_key = "sk-test"

[models.sub]
provider = "fx2"
model = "sub-model"
max_context_size = 100000
` });
  return { env, sub };
}
