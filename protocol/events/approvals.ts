import * as v from 'valibot';
import { ApprovalItemSchema } from '../schemas/approvals.ts';
import { AgentId } from './common.ts';
import { defineEvent } from './define.ts';

/** Approvals of tool calls, on the session's stream (the interaction events of grade `turn`). */

/** Core "Approval item". */
export type ApprovalItem = v.InferOutput<typeof ApprovalItemSchema>;
export type ApprovalOption = NonNullable<ApprovalItem['options']>[number];

/** A call remembered by `scope: session` (exact tool and subject). */
export const RememberedCall = v.object({ tool_name: v.string(), subject: v.optional(v.string()) });
export type RememberedCall = v.InferOutput<typeof RememberedCall>;

const requested = defineEvent({
  type: 'event.approval.requested', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  summary: 'A tool call waits for the user\'s approval (Core "Approval item"; expires 24 h after created_at)',
  payload: ApprovalItemSchema,
});

export const ApprovalResolvedPayload = v.object({
  approval_id: v.string(), agent_id: AgentId, tool_call_id: v.string(), decision: v.picklist(['approved', 'rejected', 'cancelled']),
  reason: v.optional(v.pipe(v.string(), v.description('why the server cancelled it: timed_out, turn_aborted, daemon_restarted'))),
  scope: v.optional(v.literal('session')), feedback: v.optional(v.string()), selected_label: v.optional(v.string()),
  remember: v.optional(v.pipe(RememberedCall, v.description('with approved + scope session: later identical calls in the session are allowed'))),
  resolved_at: v.string(),
});
export type ApprovalResolvedPayload = v.InferOutput<typeof ApprovalResolvedPayload>;
export type ApprovalDecision = ApprovalResolvedPayload['decision'];

const resolved = defineEvent({
  type: 'event.approval.resolved', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  summary: 'An approval was answered, or cancelled by the server (reason timed_out / turn_aborted / daemon_restarted)',
  payload: ApprovalResolvedPayload,
});

export const APPROVAL_EVENTS = [requested, resolved] as const;
