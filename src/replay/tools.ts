import type { ToolCall, ToolOutcome } from '../engine/tools.ts';
import type { NewEvent } from '../../protocol/events/registry.ts';
import type { ToolReplay } from '../tools/executor.ts';
import type { ToolRecord } from './record.ts';

/**
 * Tools that only drive the engine (todo lists, plan mode, questions, skills, subagents, goals) run under
 * `--tools record` too: their effects are events the replay compares, not the outside world.
 */
export const ENGINE_TOOLS: readonly string[] = [
  'TodoWrite', 'EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion', 'Skill', 'Agent', 'AgentDynamicWorkflow', 'GoalComplete',
];

/**
 * `--tools record`: every other call (Read, Write, Edit, Glob, Grep, Bash, WebSearch, WebFetch, MCP tools) is
 * answered with its recorded result, after the same checks and approval as a live call; the `file.changed`
 * a recorded Write or Edit journaled is journaled again. A call the record does not hold runs.
 */
export class RecordedTools implements ToolReplay {
  private readonly byCall = new Map<string, ToolRecord[]>();
  answered = 0;

  constructor(records: ToolRecord[]) {
    for (const r of records) {
      if (ENGINE_TOOLS.includes(r.toolName)) continue;
      // By call id alone: a subagent's agent id is minted anew in the replay.
      this.byCall.set(r.toolCallId, [...(this.byCall.get(r.toolCallId) ?? []), r]);
    }
  }

  holds(call: ToolCall): boolean {
    return this.byCall.get(call.id)?.[0]?.toolName === call.name;
  }

  answer(_sessionId: string, call: ToolCall, at: { agentId: string; turnId?: string }): { outcome: ToolOutcome; events: NewEvent[] } | undefined {
    const queue = this.byCall.get(call.id);
    const r = queue?.[0]?.toolName === call.name ? queue.shift() : undefined;
    if (!r) return undefined;
    this.answered += 1;
    const events = r.events.map((e) => ({
      type: e.type, payload: { ...e.payload, agent_id: at.agentId, ...(at.turnId ? { turn_id: at.turnId } : {}), tool_call_id: call.id },
    }) as NewEvent);
    return { outcome: { content: r.content, is_error: r.isError }, events };
  }
}
