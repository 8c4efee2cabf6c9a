import type { SubagentLauncher } from '../agents/launcher.ts';
import { toolResultContent } from '../media/tool-images.ts';
import type { MediaStore } from '../media/session-media.ts';
import type { ContentPart, Message } from '../../protocol/events/turns.ts';
import type { NewEvent } from '../../protocol/events/registry.ts';
import type { PreparedCall, ToolCall, ToolExecutor, ToolOutcome, ToolScope } from './tools.ts';

/** The tool whose consecutive calls of one step run concurrently (src/tools/agent.ts). */
const AGENT_TOOL = 'Agent';

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
 * How many of a step's Agent calls run at once. A constant: the spec names no setting for it (Part B
 * `background.max_running_tasks` bounds background tasks, not a step's foreground calls).
 */
export const AGENT_CALL_CONCURRENCY = 4;

/**
 * Runs a step's tool calls and writes one tool message answering every call, in the calls' order. Calls run one
 * after the other, except a run of consecutive foreground `Agent` calls: their checks (hooks, approval) run in order, then
 * their subagents run concurrently, at most AGENT_CALL_CONCURRENCY at a time. A write or a question is thus never
 * run beside another call. Once the turn is aborted no further call starts: each gets an error result saying it
 * did not run (and a `tool.result`, so its transcript frame ends), so the history keeps a result for every call.
 */
export async function runToolCalls(s: ToolCallsInput, calls: readonly ToolCall[], emit: (events: NewEvent[]) => Promise<unknown>): Promise<void> {
  const turn = { agent_id: s.agentId, turn_id: s.turnId };
  const content: ContentPart[] = [];
  const skipped: NewEvent[] = [];
  for (const group of groupsOf(calls)) {
    const outcomes = await runGroup(s, group);
    for (const [i, call] of group.entries()) {
      const r = outcomes[i];
      if (!r) {
        const text = s.closing() ? NOT_RUN_RESULT : ABORTED_RESULT;
        content.push({ type: 'tool_result', tool_use_id: call.id, name: call.name, content: text, is_error: true });
        skipped.push({ type: 'tool.result', payload: { ...turn, tool_call_id: call.id, tool_name: call.name, is_error: true, content: text, duration_ms: 0 } });
        continue;
      }
      const result = await toolResultContent(s.deps, s.sessionId, r);
      content.push({ type: 'tool_result', tool_use_id: call.id, name: call.name, content: result, ...(r.is_error ? { is_error: true } : {}) });
    }
  }
  const message: Message = { id: s.deps.ids.next('msg'), session_id: s.sessionId, role: 'tool', content, created_at: s.deps.clock.now().toISOString() };
  s.history.push(message);
  await emit([...skipped, { type: 'message.created', payload: { ...turn, message } }]);
}

/**
 * Consecutive foreground Agent calls form one group; every other call is a group of its own. A background
 * Agent call returns at once, and its `max_running_tasks` check must see the task its predecessor started.
 */
function groupsOf(calls: readonly ToolCall[]): ToolCall[][] {
  const groups: ToolCall[][] = [];
  for (const call of calls) {
    const last = groups.at(-1);
    if (foregroundAgent(call) && last?.[0] && foregroundAgent(last[0])) last.push(call);
    else groups.push([call]);
  }
  return groups;
}

function foregroundAgent(call: ToolCall): boolean {
  const input = call.input as { run_in_background?: unknown } | null | undefined;
  return call.name === AGENT_TOOL && input?.run_in_background !== true;
}

/** The outcomes of a group by index; a call not started because the turn was aborted has none. */
async function runGroup(s: ToolCallsInput, group: readonly ToolCall[]): Promise<Array<ToolOutcome | undefined>> {
  const prepared: PreparedCall[] = [];
  for (const call of group) {
    if (s.signal.aborted) break;
    prepared.push(await s.tools.prepare(s.sessionId, call, s.signal, s.scope, s.subagents));
  }
  const outcomes: Array<ToolOutcome | undefined> = new Array(group.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < prepared.length) {
      const i = next++;
      outcomes[i] = await prepared[i]!.finish();
    }
  };
  await Promise.all(Array.from({ length: Math.min(AGENT_CALL_CONCURRENCY, prepared.length) }, worker));
  return outcomes;
}
