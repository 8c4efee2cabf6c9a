import type { ExecutionContext } from 'ava';
import type { RecordedRequest } from '../../fixtures/llm/index.ts';
import { MODEL, startEngine, type EngineEnv } from './engine.ts';

/** The two wire protocols the agent-loop scenarios run on (issue 23): OpenAI chat completions and Anthropic messages. */
export const PROTOCOLS = ['chat_compat', 'messages_api'] as const;
export type LoopProtocol = (typeof PROTOCOLS)[number];

/**
 * config.toml with one provider of `type` aimed at the fixture LLM and its model the default. Thinking is off:
 * these scenarios are about tool calls, not about which models take reasoning parameters.
 */
export function protocolConfig(llmUrl: string, type: LoopProtocol, extra = ''): string {
  return `default_model = "${MODEL}"
auto_session_title = false
${extra}

[thinking]
enabled = false

[providers.fx]
type = "${type}"
base_url = "${llmUrl}/v1"
api_key = "sk-test"

[models."${MODEL}"]
provider = "fx"
model = "fixture-model"
max_context_size = 100000
`;
}

/** `startEngine` on a protocol: a server against a fresh fixture LLM, one session, a WS subscribed to it. */
export function startOn(t: ExecutionContext, type: LoopProtocol, extra = ''): Promise<EngineEnv> {
  return startEngine(t, { config: (llmUrl) => protocolConfig(llmUrl, type, extra) });
}

/** Tool call ids and result ids of one wire message, whatever the protocol. */
function idsOf(m: any): { calls: string[]; results: string[] } {
  const parts = Array.isArray(m.content) ? m.content : [];
  return {
    calls: [...(m.tool_calls ?? []).map((c: any) => c.id), ...parts.filter((p: any) => p.type === 'tool_use').map((p: any) => p.id)],
    results: [...(m.role === 'tool' ? [m.tool_call_id] : []), ...parts.filter((p: any) => p.type === 'tool_result').map((p: any) => p.tool_use_id)],
  };
}

/**
 * What the providers refuse in a request's history (OpenAI chat: each assistant `tool_calls` answered by the
 * `tool` messages right after it; Anthropic: by `tool_result` blocks leading the next user message): unanswered
 * calls, results answering no call of the message before, a call answered twice. Empty when the history is valid.
 */
export function pairingProblems(req: RecordedRequest): string[] {
  const problems: string[] = [];
  const msgs: any[] = req.body.messages ?? [];
  for (let i = 0; i < msgs.length; i++) {
    const { calls, results } = idsOf(msgs[i]);
    if (results.length) problems.push(`message ${i}: results ${results.join(',')} answer no call of the message before`);
    if (!calls.length) continue;
    const answered: string[] = [];
    if (req.protocol === 'messages') {
      const next = msgs[i + 1];
      const parts: any[] = Array.isArray(next?.content) ? next.content : [];
      const firstOther = parts.findIndex((p) => p.type !== 'tool_result');
      const lead = firstOther < 0 ? parts : parts.slice(0, firstOther);
      answered.push(...lead.map((p) => p.tool_use_id));
      if (next) i++;
      const rest = idsOf({ content: parts.slice(lead.length) }).results;
      if (rest.length) problems.push(`message ${i}: tool_result blocks after other content: ${rest.join(',')}`);
    } else {
      while (msgs[i + 1]?.role === 'tool') answered.push(msgs[++i].tool_call_id);
    }
    for (const id of calls) {
      const n = answered.filter((x) => x === id).length;
      if (n !== 1) problems.push(`call ${id} has ${n} results`);
    }
    for (const id of answered) if (!calls.includes(id)) problems.push(`result ${id} answers no call`);
  }
  return problems;
}
