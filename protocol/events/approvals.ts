import * as v from 'valibot';
import { ApprovalItemSchema, DisplayBlock } from '../schemas/approvals.ts';
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
  turn: 'step',
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
  turn: 'step',
});

/**
 * The same approval as the reference server names it (spec/clients.md F), for clients that follow `permission.approval.*`:
 * journaled beside `event.approval.*` in the same batch. Their wire payload adds `id`, `toolName`, `toolInput` (and the
 * common v1 keys: turnId, step, ...). In no transcript, and never suppressed on a graded connection (clients.md A7).
 */
const PermissionApproval = {
  approval_id: v.string(), agent_id: AgentId, turn_id: v.optional(v.string()), tool_call_id: v.string(),
  tool_name: v.string(), action: v.string(), display: DisplayBlock, tool_input: v.pipe(v.unknown(), v.description('the arguments of the call')),
};
const PERMISSION_ALIASES = { approval_id: 'id', tool_name: 'toolName', tool_input: 'toolInput' } as const;

const permissionRequested = defineEvent({
  type: 'permission.approval.requested', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'none',
  summary: 'event.approval.requested as the reference server names it: id, toolCallId, toolName, action, display (a block), toolInput',
  payload: v.object(PermissionApproval),
  aliases: PERMISSION_ALIASES,
  turn: 'step',
});

const permissionResolved = defineEvent({
  type: 'permission.approval.resolved', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'none',
  summary: 'event.approval.resolved as the reference server names it: the request\'s fields (when this daemon still held them) and decision',
  payload: v.object({
    ...PermissionApproval, tool_name: v.optional(v.string()), action: v.optional(v.string()), display: v.optional(DisplayBlock),
    tool_input: v.optional(v.unknown()), decision: ApprovalResolvedPayload.entries.decision,
  }),
  aliases: PERMISSION_ALIASES,
  turn: 'step',
});

export const APPROVAL_EVENTS = [requested, resolved, permissionRequested, permissionResolved] as const;
export type PermissionRequestedPayload = v.InferOutput<typeof permissionRequested.payload>;
export type PermissionResolvedPayload = v.InferOutput<typeof permissionResolved.payload>;
