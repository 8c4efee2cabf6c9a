import type { SubagentFailure } from '../../protocol/events/subagents.ts';
import type { BoundModel } from './pool.ts';
import type { SubagentTask } from './subagent-task.ts';

export interface SpawnRequest {
  sessionId: string;
  parentAgentId: string;
  parentTurnId?: string;
  parentToolCallId?: string;
  description: string;
  prompt: string;
  subagentType: string;
  bound: BoundModel;
  background: boolean;
  /** Restricts the tools (subagent types); the spawn exclusions always apply. */
  only?: readonly string[];
  /** The session's disabled_tools (Core: "tool names to disable for the session"): a subagent does not get them back. */
  disabledTools?: readonly string[];
  /** Added to the subagent's system prompt: the skills it may load, a custom agent's instructions (docs/agents.md). */
  instructions?: string;
  /** Overrides `[subagent] timeout_ms` (a dynamic workflow uses `[dynamic_workflow] timeout_ms`). */
  timeout?: { ms: number; setting: string };
}

export type SubagentSettlement =
  | { status: 'completed'; result: string }
  | { status: 'failed'; reason: SubagentFailure; message: string };

/**
 * The port the Agent tools start subagents through. The engine running the turn hands its launcher
 * to each tool call (ToolContext.subagents), so the tools never need the engine, and the engine is
 * built after the tools: no cycle engine -> tools -> agents -> engine.
 */
export interface SubagentLauncher {
  /**
   * Starts a subagent: a task (kind subagent) running one turn of its own agent with a fresh
   * history. `settled` resolves when it ends; the task can be cancelled, detached or time out.
   */
  spawn(req: SpawnRequest): Promise<{ task: SubagentTask; settled: Promise<SubagentSettlement> }>;
}
