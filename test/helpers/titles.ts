import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureLlm, type FixtureLlm } from '../../fixtures/llm/index.ts';
import { startTestServer, tempHome, type TestServer } from './server.ts';

export interface TitleEnv { s: TestServer; llm: FixtureLlm }

/** A server whose config has a chat_compat provider aimed at the fixture LLM (unless `withModel` is false). */
export async function titleServer(t: any, opts: { withModel?: boolean; extra?: string } = {}): Promise<TitleEnv> {
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const home = await tempHome();
  const model = opts.withModel === false ? '' : `
default_model = "fx/small"

[providers.fx]
type = "chat_compat"
base_url = "${llm.url}/v1"
api_key = "sk-title-test"

[models."fx/small"]
provider = "fx"
model = "small-model"
max_context_size = 8192
`;
  await writeFile(path.join(home, 'config.toml'), `${opts.extra ?? ''}\n${model}`);
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  return { s, llm };
}

let n = 0;

/** Appends a user prompt the way the engine does (`prompt.accepted`). */
export async function addPrompt(s: TestServer, id: string, text: string, agentId = 'main'): Promise<void> {
  n++;
  await s.journal.append([{
    stream: id, type: 'prompt.accepted',
    payload: {
      agent_id: agentId, prompt_id: `prompt_${n}`, user_message_id: `msg_u${n}`, content: [{ type: 'text', text }],
      created_at: new Date().toISOString(), overrides: {},
    },
  }]);
}

/** Appends an assistant message (`message.created`). */
export async function addReply(s: TestServer, id: string, text: string): Promise<void> {
  n++;
  await s.journal.append([{
    stream: id, type: 'message.created',
    payload: {
      agent_id: 'main', turn_id: `turn_${n}`,
      message: { id: `msg_a${n}`, session_id: id, role: 'assistant', content: [{ type: 'text', text }], created_at: new Date().toISOString() },
    },
  }]);
}

export async function endTurn(s: TestServer, id: string): Promise<void> {
  n++;
  await s.journal.append([{
    stream: id, type: 'turn.ended',
    payload: {
      agent_id: 'main', turn_id: `turn_${n}`, prompt_id: `prompt_${n}`, reason: 'completed', steps: 1, ended_at: new Date().toISOString(),
      usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_creation_tokens: 0 },
    },
  }]);
}

/** The text the fixture received as the user message of request `i`. */
export function askedText(llm: FixtureLlm, i: number): string {
  const msgs = llm.requests[i].body.messages as Array<{ role: string; content: unknown }>;
  return msgs.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}
