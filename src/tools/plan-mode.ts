import * as v from 'valibot';
import type { ApprovalResolvedPayload } from '../../protocol/events/approvals.ts';
import { PLAN_MODE_RULES, PLAN_REVIEW_OPTIONS, PlanOptions, setAgentConfig } from './plan-state.ts';
import { ToolError, defineTool, type ToolContext, type ToolDef } from './types.ts';

/** Turns plan mode on for the session: the permission gate then denies every tool that is not read-only. */
export const enterPlanModeTool = defineTool({
  name: 'EnterPlanMode',
  description: 'Enter plan mode before a non-trivial change: explore and design an implementation plan without changing anything, '
    + 'then present it with ExitPlanMode for the user to approve.',
  schema: v.object({}),
  readOnly: true,
  async run(_input, ctx) {
    if (ctx.deps.permissions.planModeOf(ctx.session.id)) return `Plan mode was already on.\n\n${PLAN_MODE_RULES}`;
    await setAgentConfig(ctx.deps, ctx.session.id, { plan_mode: true });
    return `Entered plan mode.\n\n${PLAN_MODE_RULES}`;
  },
});

/**
 * Presents the plan for review: an approval carrying the plan and the review options
 * (Core "Approvals and questions"); waits like any approval (24 h, abort cancels).
 */
export const exitPlanModeTool = defineTool({
  name: 'ExitPlanMode',
  description: 'Present your implementation plan (markdown) to the user for approval and leave plan mode once approved. '
    + 'Call it when you are in plan mode and the plan is ready; the user may ask you to keep planning, with feedback.',
  schema: v.object({ plan: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty')) }),
  readOnly: true,
  async run(input, ctx) {
    if (!ctx.toolCallId) throw new ToolError('ExitPlanMode is not available here');
    const r = await ctx.deps.permissions.review(ctx.session.id, { id: ctx.toolCallId, name: 'ExitPlanMode', input }, {
      agentId: ctx.agentId, readOnly: true, ...(ctx.turnId ? { turnId: ctx.turnId } : {}),
    }, { action: 'Review the plan and approve it, or keep planning', display: input.plan, options: PLAN_REVIEW_OPTIONS, plan: input.plan }, ctx.signal);
    if (r.decision === 'cancelled') throw new ToolError(cancelledText(r));
    const label = r.selected_label ?? PlanOptions.approve;
    if (r.decision === 'rejected' || label === PlanOptions.keepPlanning) return keepPlanning(ctx, r);
    // yolo already accepts everything: "auto-accept edits" never lowers it to auto.
    const auto = label === PlanOptions.approveAuto && ctx.deps.permissions.modeOf(ctx.session.id) !== 'yolo';
    await setAgentConfig(ctx.deps, ctx.session.id, auto ? { plan_mode: false, permission_mode: 'auto' } : { plan_mode: false });
    return [
      `The user approved your plan (option "${label}"). Plan mode is off: you can now make changes.`,
      ...(auto ? ['The session is now in auto mode: file edits inside the workspace are accepted without asking.'] : []),
      ...(r.feedback ? [`User feedback: ${r.feedback}`] : []),
      'Start implementing the plan now; track the steps with TodoWrite.',
    ].join('\n');
  },
});

async function keepPlanning(ctx: ToolContext, r: ApprovalResolvedPayload): Promise<string> {
  if (!ctx.deps.permissions.planModeOf(ctx.session.id)) await setAgentConfig(ctx.deps, ctx.session.id, { plan_mode: true });
  return [
    'The user did not approve the plan and wants you to keep planning. Plan mode stays on: do not make changes yet.',
    r.feedback ? `User feedback: ${r.feedback}` : 'The user gave no feedback; ask with AskUserQuestion if it is unclear what to change.',
    'Revise the plan and call ExitPlanMode again when it is ready.',
  ].join('\n');
}

function cancelledText(r: ApprovalResolvedPayload): string {
  const why = r.reason === 'timed_out' ? 'the user did not answer within 24 hours'
    : r.reason === 'turn_aborted' ? 'the turn was aborted'
      : r.reason === 'daemon_restarted' ? 'the daemon restarted' : 'the user cancelled it';
  return `The plan review was cancelled (${why}); plan mode is unchanged.${r.feedback ? ` Feedback: ${r.feedback}` : ''}`;
}

export const planTools: ToolDef[] = [enterPlanModeTool, exitPlanModeTool];
