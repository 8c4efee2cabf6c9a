import type { EventJournal } from '../events/journal.ts';

/**
 * Changes the session's agent_config the way POST /sessions/{id}/profile does (the same
 * `session.profile_updated` event), so plan_mode / permission_mode set by the plan tools
 * show in GET /status and the session object, and survive a restart.
 */
export async function setAgentConfig(deps: { journal: EventJournal }, sessionId: string, patch: { plan_mode?: boolean; permission_mode?: string }): Promise<void> {
  await deps.journal.append([{ stream: sessionId, type: 'session.profile_updated', payload: { agent_config: patch } }]);
}

/** The rules the model gets when plan mode turns on. */
export const PLAN_MODE_RULES = [
  'Plan mode is on. Until the user approves a plan:',
  '- Do not change anything: tools that edit files or run commands (Write, Edit, Bash, ...) are denied.',
  '  Read-only tools (Read, Glob, Grep, AskUserQuestion, TodoWrite) still work.',
  '- Explore the code, ask clarifying questions with AskUserQuestion when requirements are unclear, and design an implementation plan.',
  '- When the plan is ready, call ExitPlanMode with the plan as markdown. The user reviews it: once approved, plan mode ends and you',
  '  implement it; if they ask you to keep planning, revise the plan using their feedback and call ExitPlanMode again.',
].join('\n');

/** Options of a plan review (approval item `options`); `selected_label` of the answer is one of them. */
export const PlanOptions = {
  approve: 'Approve',
  approveAuto: 'Approve and auto-accept edits',
  keepPlanning: 'Keep planning',
} as const;

export const PLAN_REVIEW_OPTIONS = [
  { label: PlanOptions.approve, description: 'Leave plan mode and implement the plan; edits still follow the session\'s permission mode' },
  { label: PlanOptions.approveAuto, description: 'Leave plan mode and switch the session to auto mode (edits inside the workspace are accepted)' },
  { label: PlanOptions.keepPlanning, description: 'Stay in plan mode; the agent revises the plan with your feedback' },
];
