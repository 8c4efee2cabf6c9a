import * as v from 'valibot';
import { sessionDisabled, SUBAGENT_TYPES } from '../agents/caller.ts';
import { modelParameter, type BoundModel } from '../agents/pool.ts';
import { subagentSetup } from '../agents/subagent-profile.ts';
import type { SubagentSettlement } from '../agents/launcher.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import { ToolError, defineTool, type ToolContext, type ToolDef } from './types.ts';

const MAX_AGENTS = 8;
const REPORT_BUDGET = 60_000;

const taskFields = {
  description: v.pipe(v.string(), v.minLength(1), v.description('a short (3-5 word) description of this agent\'s task')),
  prompt: v.pipe(v.string(), v.minLength(1), v.description('the task; the agent starts with no other context')),
  subagent_type: v.optional(v.pipe(v.string(), v.description(`one of: ${Object.keys(SUBAGENT_TYPES).join(', ')}; default general-purpose`))),
};

const inputOf = <T extends v.GenericSchema>(task: T) => v.object({
  description: v.pipe(v.string(), v.minLength(1), v.description('what the workflow as a whole is for')),
  tasks: v.pipe(v.array(task), v.minLength(1), v.maxLength(MAX_AGENTS, `at most ${MAX_AGENTS} agents`), v.description('independent tasks, one agent each, run in parallel')),
});

/** Validation accepts `model` always so a forced pool can reject it (Part B secondary_model rule 5). */
const Task = v.object({ ...taskFields, model: v.optional(v.string()) });
const Input = inputOf(Task);
type Input = v.InferOutput<typeof Input>;

/** Rule 3 applies here as for Agent: `model` per task only with a configured pool. */
function offeredSchema(c: ResolvedConfig): v.GenericSchema {
  const param = modelParameter(c);
  if (!param) return inputOf(v.object(taskFields));
  const model = v.optional(v.pipe(v.picklist(param.choices), v.description(`model of this agent (primary = your own); default ${c.secondary_model.default_model}`)));
  return inputOf(v.object({ ...taskFields, model }));
}

interface Planned { description: string; prompt: string; type: string; only?: readonly string[]; bound: BoundModel; instructions: string }

/** Every task is checked before any agent starts, so a bad entry never leaves half a workflow running. */
async function plan(input: Input, ctx: ToolContext): Promise<Planned[]> {
  const out: Planned[] = [];
  for (const [i, t] of input.tasks.entries()) {
    const type = t.subagent_type ?? 'general-purpose';
    // Custom agents too (docs/agents.md), with their tools, model and instructions.
    const setup = await subagentSetup(ctx, type, t.model);
    if ('error' in setup) throw new ToolError(`tasks[${i}]: ${setup.error}`);
    out.push({ description: t.description, prompt: t.prompt, type, ...(setup.only ? { only: setup.only } : {}), bound: setup.bound, instructions: setup.instructions });
  }
  return out;
}

/**
 * Runs several subagents in parallel and returns one aggregated report (Part B
 * dynamic_workflow). Offered only while the session's `dynamic_workflow_mode` is on.
 * Each agent is bounded by `[dynamic_workflow] timeout_ms`; a timed-out one is aborted
 * and marked so in the report, the others' results are kept.
 */
export const dynamicWorkflowTool: ToolDef<Input> = defineTool({
  name: 'AgentDynamicWorkflow',
  description: `Run up to ${MAX_AGENTS} independent subagents in parallel and get one aggregated report of their answers. `
    + 'Use it to fan out research or separate changes that do not depend on each other.',
  schema: Input,
  offeredSchema,
  readOnly: true,
  enabledFor: (session) => (session.agent_config as { dynamic_workflow_mode?: unknown }).dynamic_workflow_mode === true,
  async run(input, ctx) {
    const planned = await plan(input, ctx);
    const timeoutMs = ctx.config.dynamic_workflow.timeout_ms;
    const spawned = await Promise.all(planned.map((p) => ctx.subagents.spawn({
      sessionId: ctx.session.id, parentAgentId: ctx.agentId, ...(ctx.turnId ? { parentTurnId: ctx.turnId } : {}),
      ...(ctx.toolCallId ? { parentToolCallId: ctx.toolCallId } : {}), description: p.description, prompt: p.prompt,
      subagentType: p.type, bound: p.bound, background: false, ...(p.only ? { only: p.only } : {}), disabledTools: sessionDisabled(ctx),
      ...(p.instructions ? { instructions: p.instructions } : {}),
      timeout: { ms: timeoutMs, setting: '[dynamic_workflow] timeout_ms' },
    })));
    const onAbort = () => spawned.forEach((s) => ctx.deps.tasks.cancel(s.task));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal.aborted) onAbort();
    try {
      const outcomes = await Promise.all(spawned.map((s) => s.settled));
      if (ctx.signal.aborted) throw new ToolError('the workflow was cancelled with its turn');
      return report(input.description, planned, spawned.map((s) => s.task.spec.agentId), outcomes);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
  },
});

function report(title: string, planned: Planned[], agents: string[], outcomes: SubagentSettlement[]): string {
  const label = (o: SubagentSettlement) => (o.status === 'completed' ? 'completed' : o.reason === 'timed_out' ? 'timed out' : o.reason);
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(label(o), (counts.get(label(o)) ?? 0) + 1);
  const each = Math.floor(REPORT_BUDGET / planned.length);
  const sections = planned.map((p, i) => {
    const o = outcomes[i]!;
    const body = o.status === 'completed' ? o.result : `[${label(o)}] ${o.message}`;
    const cut = body.length > each ? `${body.slice(0, each)}\n... [truncated at ${each} characters]` : body;
    return `## ${i + 1}. ${p.description} — ${label(o)} (${agents[i]}, model ${p.bound.model.alias})\n${cut}`;
  });
  const summary = [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
  return `Dynamic workflow "${title}": ${planned.length} agent(s), ${summary}.\n\n${sections.join('\n\n')}`;
}

export const dynamicWorkflowTools: ToolDef[] = [dynamicWorkflowTool];
