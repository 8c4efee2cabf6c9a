import * as v from 'valibot';
import { sessionDisabled, SUBAGENT_TYPES } from '../agents/caller.ts';
import { modelParameter } from '../agents/pool.ts';
import { agentToolSpec, subagentSetup } from '../agents/subagent-profile.ts';
import type { SubagentSettlement } from '../agents/launcher.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import { truncateHead } from './truncate.ts';
import { ToolError, defineTool, type ToolDef } from './types.ts';

const RESULT_BUDGET = 50_000;

const fields = {
  description: v.pipe(v.string(), v.minLength(1), v.description('a short (3-5 word) description of the task')),
  prompt: v.pipe(v.string(), v.minLength(1), v.description('the task for the agent; it starts with no other context, so say everything it needs')),
  subagent_type: v.optional(v.pipe(v.string(), v.description(`one of: ${Object.entries(SUBAGENT_TYPES).map(([k, t]) => `${k} (${t.summary})`).join('; ')}; default general-purpose`))),
  run_in_background: v.optional(v.pipe(v.boolean(), v.description('return at once; the result arrives later as a task notification'))),
};

/** Validation accepts `model` always, so a forced pool can reject it (rule 5) rather than drop it. */
const Input = v.object({ ...fields, model: v.optional(v.string()) });

/** Rule 3: the `model` parameter is offered only with a configured pool (and never with force). */
function offeredSchema(c: ResolvedConfig): v.GenericSchema {
  const param = modelParameter(c);
  if (!param) return v.object(fields);
  const hints = param.choices.map((k) => (k === 'primary' ? 'primary (your own model and effort)' : param.hints[k] ? `${k} (${param.hints[k]})` : k));
  const model = v.optional(v.pipe(v.picklist(param.choices), v.description(`model of the subagent: ${hints.join('; ')}; default ${c.secondary_model.default_model}`)));
  return v.object({ ...fields, model });
}

/** Delegates a task to a subagent (Part B secondary_model, subagent). */
export const agentTool: ToolDef<v.InferOutput<typeof Input>> = defineTool({
  name: 'Agent',
  description: 'Launch a subagent to handle a self-contained task (research, a focused change) with its own context. '
    + 'It returns the agent\'s final answer (cut at 50,000 characters); with run_in_background the result comes later as a task notification.',
  schema: Input,
  offeredSchema,
  specFor: (base, deps, session) => agentToolSpec(base, deps.agents, session),
  readOnly: true,
  async run(input, ctx) {
    const type = input.subagent_type ?? 'general-purpose';
    const setup = await subagentSetup(ctx, type, input.model);
    if ('error' in setup) throw new ToolError(setup.error);
    const { bound } = setup;
    const background = input.run_in_background === true;
    // Part B background.max_running_tasks counts background subagents as it counts Bash tasks.
    const max = ctx.config.background.max_running_tasks;
    if (background && max !== undefined && ctx.deps.tasks.runningBackground().length >= max) {
      throw new ToolError(`max_running_tasks (${max}) reached; wait for a task to finish or cancel one`);
    }
    const { task, settled } = await ctx.subagents.spawn({
      sessionId: ctx.session.id, parentAgentId: ctx.agentId, ...(ctx.turnId ? { parentTurnId: ctx.turnId } : {}),
      ...(ctx.toolCallId ? { parentToolCallId: ctx.toolCallId } : {}), description: input.description, prompt: input.prompt,
      subagentType: type, bound, background, ...(setup.only ? { only: setup.only } : {}), disabledTools: sessionDisabled(ctx),
      ...(setup.instructions ? { instructions: setup.instructions } : {}),
    });
    const started = `agent ${task.spec.agentId} (task ${task.spec.id}, model ${bound.model.alias})`;
    if (background) return `Started ${started} in the background. Its result arrives as a task notification; do not wait for it by polling.`;
    const moved = new Promise<'detached'>((resolve) => (task.onBackground = () => resolve('detached')));
    const onAbort = () => ctx.deps.tasks.cancel(task);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal.aborted) onAbort();
    try {
      const how = await Promise.race([settled, moved]);
      if (how === 'detached') return `${started} was moved to the background; its result arrives as a task notification.`;
      return answer(how);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
  },
});

function answer(s: SubagentSettlement): string {
  if (s.status === 'completed') return truncateHead(s.result, RESULT_BUDGET);
  throw new ToolError(`The subagent ${s.reason === 'timed_out' ? 'timed out' : s.reason}: ${s.message}`);
}

export const agentTools: ToolDef[] = [agentTool];
