import type { SubagentLauncher } from '../agents/launcher.ts';
import { toolResultContent } from '../media/tool-images.ts';
import type { MediaStore } from '../media/session-media.ts';
import { ToolEvents } from '../tools/events.ts';
import type { ContentPart, Message } from '../../protocol/events/turns.ts';
import type { NewEvent } from '../../protocol/events/registry.ts';
import { EngineEvents } from './events.ts';
import type { ToolCall, ToolExecutor, ToolScope } from './tools.ts';

/** What the model reads for a call the user's Stop kept from running. */
export const ABORTED_RESULT = '[aborted] The user stopped the turn before this tool call ran: it was not run and changed nothing.';
/** What the model reads for a call a daemon stop kept from running. */
export const NOT_RUN_RESULT = '[interrupted] The daemon stopped before this tool call ran: it was not run and changed nothing.';

/** What running one step's tool calls needs from its turn. */
export interface ToolCallsInput {
  /** Images a tool returns are stored as session media (src/media/tool-images.ts). */
  deps: MediaStore;
  sessionId: string;
  turnId: string;
  agentId: string;
  history: Message[];
  tools: ToolExecutor;
  subagents: SubagentLauncher;
  scope: ToolScope;
  signal: AbortSignal;
  /** The daemon is stopping (the abort is not the user's). */
  closing(): boolean;
}

/**
 * Runs a step's tool calls one after the other and writes one tool message answering every call. Once the
 * turn is aborted no further call starts: each gets an error result saying it did not run (and a
 * `tool.result`, so its transcript frame ends), so the history keeps a result for every call.
 */
export async function runToolCalls(s: ToolCallsInput, calls: readonly ToolCall[], emit: (events: NewEvent[]) => Promise<unknown>): Promise<void> {
  const turn = { agent_id: s.agentId, turn_id: s.turnId };
  const content: ContentPart[] = [];
  const skipped: NewEvent[] = [];
  for (const call of calls) {
    if (s.signal.aborted) {
      const text = s.closing() ? NOT_RUN_RESULT : ABORTED_RESULT;
      content.push({ type: 'tool_result', tool_use_id: call.id, name: call.name, content: text, is_error: true });
      skipped.push({ type: ToolEvents.result, payload: { ...turn, tool_call_id: call.id, tool_name: call.name, is_error: true, content: text, duration_ms: 0 } });
      continue;
    }
    const r = await s.tools.run(s.sessionId, call, s.signal, s.scope, s.subagents);
    const result = await toolResultContent(s.deps, s.sessionId, r);
    content.push({ type: 'tool_result', tool_use_id: call.id, name: call.name, content: result, ...(r.is_error ? { is_error: true } : {}) });
  }
  const message: Message = { id: s.deps.ids.next('msg'), session_id: s.sessionId, role: 'tool', content, created_at: s.deps.clock.now().toISOString() };
  s.history.push(message);
  await emit([...skipped, { type: EngineEvents.messageCreated, payload: { ...turn, message } }]);
}
