import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { Message } from '../../protocol/events/turns.ts';
import { loadMessages, replayContext } from '../engine/history.ts';
import { sessionModel } from '../engine/model-resolve.ts';
import { finishedPrompt } from '../engine/prompt-state.ts';
import { SessionRuntime, type RuntimeDeps } from '../engine/runtime.ts';
import type { PromptAcceptedPayload } from '../../protocol/events/turns.ts';
import type { SubagentSpawnedPayload } from '../../protocol/events/subagents.ts';
import { SYSTEM_PROMPT_EVENT } from '../engine/system-prompt.ts';
import type { SystemPromptRecord } from '../../protocol/events/turns.ts';
import { known } from '../../protocol/events/known.ts';

/** `:btw` agents may only read (Core: "limited to read-only tools Read, Grep, Glob"). */
export const BTW_TOOLS = ['Read', 'Grep', 'Glob'] as const;

/**
 * The main history up to a consistent point: an assistant message whose tool calls
 * have no results yet (the main turn is running them) is left out.
 */
function settledPrefix(history: readonly Message[]): Message[] {
  const out = [...history];
  const last = out[out.length - 1];
  if (last?.role === 'assistant' && last.content.some((p) => p.type === 'tool_use')) out.pop();
  return out;
}

/** Creates a `:btw` agent: a copy of the main agent's history, its own prompt queue, read-only tools. */
export async function createBtwAgent(
  deps: RuntimeDeps, session: SessionRecord, main: { history: readonly Message[]; system?: string; identity: { name: string; slug: string } },
): Promise<SessionRuntime> {
  // A usable model configuration is required (40110 / 40113 otherwise).
  const { model, thinking } = sessionModel(deps, session);
  const history = settledPrefix(main.history);
  const agentId = deps.ids.next('btw');
  const payload: SubagentSpawnedPayload = {
    agent_id: agentId, kind: 'btw', parent_agent_id: 'main', description: 'btw', subagent_type: 'btw', model: model.alias,
    thinking_effort: thinking.enabled ? thinking.effort ?? 'default' : 'off', background: false,
    forked_from_message_id: history.length ? history[history.length - 1]!.id : null, tools: [...BTW_TOOLS],
  };
  await deps.journal.append([{ stream: session.id, type: 'subagent.spawned', payload }]);
  // The fork keeps the main agent's system prompt, recorded under its own id with its first turn.
  const system = main.system !== undefined ? { text: main.system, recorded: false, identity: main.identity } : undefined;
  return new SessionRuntime(deps, session.id, session.workspace_id, history, { id: agentId, toolScope: { only: BTW_TOOLS }, ...(system ? { system } : {}) });
}

/** After a restart: the `:btw` agent's history is the main history up to its fork point, then its own events replayed over it. */
export async function rebuildBtwAgent(deps: RuntimeDeps, session: SessionRecord, agentId: string): Promise<SessionRuntime | undefined> {
  // One read: the agent's own messages, and every event to replay the main context as it was at the fork.
  const own = await loadMessages(deps.journal, session.id, agentId);
  const at = own.events.findIndex((e) => known(e).type === 'subagent.spawned' && e.payload?.agent_id === agentId && e.payload?.kind === 'btw');
  if (at < 0) return undefined;
  const mainAtFork: Message[] = [];
  for (const e of own.events.slice(0, at)) replayContext(mainAtFork, e, 'main');
  const forkId = (own.events[at]!.payload as SubagentSpawnedPayload).forked_from_message_id;
  const cut = forkId ? mainAtFork.findIndex((m) => m.id === forkId) + 1 : 0;
  // The agent's own events replayed over the fork's prefix: its compactions replace messages of both.
  const history = mainAtFork.slice(0, cut);
  for (const e of own.events.slice(at + 1)) replayContext(history, e, agentId);
  const rt = new SessionRuntime(deps, session.id, session.workspace_id, history, {
    id: agentId, toolScope: { only: BTW_TOOLS }, ...recordedSystem(own.events, agentId),
  });
  for (const e of own.events) {
    if (known(e).type === 'prompt.accepted' && e.payload?.agent_id === agentId) rt.prompts.set(e.payload.prompt_id, finishedPrompt(e.payload as PromptAcceptedPayload));
  }
  return rt;
}

/** The system prompt recorded for the agent (or else for the main agent) in the session's journal. */
function recordedSystem(events: Array<{ type: string; payload: any }>, agentId: string) {
  const find = (id: string) => events.find((e) => e.type === SYSTEM_PROMPT_EVENT && e.payload?.agent_id === id)?.payload as SystemPromptRecord | undefined;
  const own = find(agentId);
  const rec = own ?? find('main');
  return rec ? { system: { text: rec.text, recorded: own !== undefined, identity: rec.identity } } : {};
}
