import type { ModelClient, ModelEntry, ModelMessage, ModelRequest, ModelStreamPart, ProviderEntry, WireType } from '../providers/wire/types.ts';
import { WIRE_TYPES } from '../providers/wire/types.ts';
import { userText, type Answer, type Recording } from './record.ts';

/**
 * The model of a replay: every request is answered with the next recorded answer of the agent that asks
 * (no network, no credential). The agent is told from the request: the tool call its last tool result
 * answers, else its last user message's text; failing both, the oldest answer not yet served.
 */
export class ReplayModels {
  private readonly queues = new Map<string, Answer[]>();
  private readonly toolAgents = new Map<string, string[]>();
  served = 0;

  constructor(private readonly rec: Pick<Recording, 'answers' | 'userTexts'>) {
    for (const a of rec.answers) {
      if (!this.queues.has(a.agentId)) this.queues.set(a.agentId, []);
      this.queues.get(a.agentId)!.push(a);
      for (const p of a.parts) if (p.type === 'tool_use') this.toolAgents.set(p.id, [...(this.toolAgents.get(p.id) ?? []), a.agentId]);
    }
  }

  /** The `ClientCache` builder: one replay client whatever the provider and model. */
  readonly client = (entry: ProviderEntry, model: ModelEntry): ModelClient => {
    const type = (model.base_url && model.protocol ? model.protocol : entry.type) as WireType;
    return {
      wireType: WIRE_TYPES.includes(type) ? type : 'chat_compat',
      modelId: model.model,
      capabilities: model.capabilities ?? [],
      stream: (req) => this.play(this.next(req)),
    };
  };

  private next(req: ModelRequest): Answer | undefined {
    const agent = this.agentOf(req.messages);
    const queue = agent ? this.queues.get(agent) : this.oldest();
    return queue?.shift();
  }

  private agentOf(messages: ModelMessage[]): string | undefined {
    const waiting = (id: string) => (this.queues.get(id)?.length ?? 0) > 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.role === 'tool') {
        const id = m.content[0]?.tool_use_id;
        const hit = id ? this.toolAgents.get(id)?.find(waiting) : undefined;
        if (hit) return hit;
      } else if (m.role === 'user') {
        const text = userText(m.content);
        for (const [agent, texts] of this.rec.userTexts) if (texts.has(text) && waiting(agent)) return agent;
        return undefined;
      }
    }
    return undefined;
  }

  private oldest(): Answer[] | undefined {
    const first = this.rec.answers.find((a) => this.queues.get(a.agentId)?.includes(a));
    return first ? this.queues.get(first.agentId) : undefined;
  }

  private async *play(a: Answer | undefined): AsyncGenerator<ModelStreamPart> {
    if (!a) {
      yield { type: 'error', error: { kind: 'other', message: 'replay: the record holds no further model answer for this request' } };
      return;
    }
    this.served += 1;
    for (const p of a.parts) {
      if (p.type === 'text') yield { type: 'text-delta', text: p.text };
      else if (p.type === 'thinking') {
        yield { type: 'reasoning-delta', text: p.thinking };
        yield { type: 'reasoning-end', ...(p.meta ? { meta: p.meta } : {}) };
      } else if (p.type === 'tool_use') {
        yield { type: 'tool-call-start', id: p.id, name: p.name };
        yield { type: 'tool-call-delta', id: p.id, argsTextDelta: JSON.stringify(p.input ?? {}) };
        yield { type: 'tool-call', id: p.id, name: p.name, input: p.input, ...(p.meta ? { meta: p.meta } : {}) };
      }
    }
    if (a.error) {
      yield { type: 'error', error: a.error };
      return;
    }
    const u = a.usage;
    yield { type: 'usage', usage: { input: u?.input_tokens ?? 0, output: u?.output_tokens ?? 0, cache_read: u?.cache_read_tokens ?? 0, cache_creation: u?.cache_creation_tokens ?? 0 } };
    yield { type: 'finish', reason: (a.finish ?? 'stop') as never };
  }
}
