import * as v from 'valibot';
import { LIMITS, maxString } from '../../protocol/schemas/common.ts';
import { defineTool, ToolError, type ToolDef } from '../tools/types.ts';

const Input = v.object({
  summary: v.pipe(maxString(LIMITS.lineChars), v.description('What was done to reach the goal, in a sentence or two')),
});

/** The goal's name as the model calls it. */
export const GOAL_TOOL = 'GoalComplete';

/**
 * How the model reports the session's goal reached (docs/goals.md): offered only while a goal is
 * active; the goal becomes `complete` with terminalReason `completed`, and the loop stops pursuing it.
 */
export const goalCompleteTool: ToolDef<v.InferOutput<typeof Input>> = defineTool({
  name: GOAL_TOOL,
  description: 'Report that the session goal is fully achieved. Call it only when the objective is met; the agent then stops working on the goal.',
  schema: Input,
  readOnly: true,
  enabledFor: (session) => session.goal?.status === 'active',
  async run(input, ctx) {
    const goal = ctx.session.goal;
    if (!goal || goal.status !== 'active') throw new ToolError('there is no active goal');
    await ctx.deps.journal.append([{ stream: ctx.session.id, type: 'goal.updated', payload: { goal: { ...goal, status: 'complete', terminalReason: 'completed' } } }]);
    return `Goal marked complete: ${input.summary}`;
  },
});
