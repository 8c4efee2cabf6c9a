import * as v from 'valibot';
import { Id, Line, Text } from './common.ts';

/** A display block (protocol/display.ts): `kind` and the kind's keys. */
export const DisplayBlock = v.looseObject({ kind: v.pipe(v.string(), v.description('command, diff, file_io, todo_list, search, url_fetch, agent_call, skill_call, plan_review or invocation')) });

export const ApprovalParams = v.object({ session_id: Id, approval_id: Id });

/** `status` is required and `pending` is its only value. */
export const ApprovalListQuery = v.object({ status: v.picklist(['pending'], 'must be `pending`') });

export const ApprovalItemSchema = v.object({
  approval_id: v.string(),
  session_id: v.string(),
  agent_id: v.string(),
  turn_id: v.optional(v.string()),
  tool_call_id: v.string(),
  tool_name: v.string(),
  action: v.string(),
  tool_input_display: v.string(),
  created_at: v.string(),
  expires_at: v.string(),
  options: v.optional(v.pipe(v.array(v.object({ label: v.string(), description: v.optional(v.string()) })), v.description('plan reviews (ExitPlanMode): answer with selected_label'))),
  plan: v.optional(v.pipe(v.string(), v.description('plan reviews: the plan (markdown)'))),
  display: v.optional(v.pipe(DisplayBlock, v.description(
    'the call as a display block (spec/clients.md B4, F): Bash `{kind:"command", command, cwd, language}`, Edit `diff`, Write `file_io`, a plan review '
      + '`plan_review`, any other tool `invocation`; `tool_input_display` stays its text',
  ))),
  tool_input: v.optional(v.pipe(v.unknown(), v.description('the arguments of the call waiting for approval'))),
});

export const ApprovalList = v.object({ items: v.array(ApprovalItemSchema) });

export const ApprovalResolveBody = v.object({
  decision: v.picklist(['approved', 'rejected', 'cancelled']),
  scope: v.optional(v.picklist(['session'])),
  feedback: v.optional(Text),
  selected_label: v.optional(Line),
});

export const ApprovalResolved = v.object({ resolved: v.literal(true), resolved_at: v.string() });
