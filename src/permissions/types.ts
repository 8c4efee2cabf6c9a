/**
 * The permission gate the tool executor calls before running each tool:
 *
 *   app.permissions.check(sessionId, call, ctx, signal): Promise<PermissionDecision>
 *
 * - `call`: the model's tool call `{id, name, input}` (id = tool_call_id).
 * - `ctx.readOnly`: the tool never changes the workspace nor runs commands (Read, Glob, Grep).
 * - `ctx.subject`: optional rule subject computed by the tool (Bash: the command; Read/Write/Edit:
 *   the path relative to the workspace root). When absent it is derived from `input.command` /
 *   `input.file_path` / `input.path`.
 * - `signal`: the turn's abort signal; an abort while waiting resolves the approval `cancelled`.
 * The promise resolves (never rejects for a policy outcome) once decided; when asking it waits for
 * POST /approvals/{id}, the 24 h expiry or the abort. Other sessions are never blocked.
 */
export interface ToolCallRef {
  id: string;
  name: string;
  input: unknown;
}

export interface CheckContext {
  turnId?: string;
  agentId: string;
  readOnly: boolean;
  subject?: string;
}

export type PermissionDecision = { decision: 'allow' } | { decision: 'deny'; message: string };

export interface PermissionGate {
  check(sessionId: string, call: ToolCallRef, ctx: CheckContext, signal?: AbortSignal): Promise<PermissionDecision>;
}

export type PermissionMode = 'manual' | 'yolo' | 'auto';
export type RuleDecision = 'allow' | 'deny' | 'ask';

/** One `[[permission.rules]]` entry. */
export interface PermissionRule {
  pattern: string;
  decision: RuleDecision;
  reason?: string;
}

/** Core "Approval item". */
export interface ApprovalItem {
  approval_id: string;
  session_id: string;
  agent_id: string;
  turn_id?: string;
  tool_call_id: string;
  tool_name: string;
  action: string;
  tool_input_display: string;
  created_at: string;
  expires_at: string;
  /** Choices offered with the approval (a plan review: "Approve", "Keep planning", ...); the answer's selected_label is one of them. */
  options?: ApprovalOption[];
  /** The plan under review (markdown), on ExitPlanMode approvals. */
  plan?: string;
}

export interface ApprovalOption {
  label: string;
  description?: string;
}

/** What a review (`PermissionService.review`) shows besides the call: the choices and the plan. */
export interface ReviewRequest {
  action: string;
  display: string;
  options?: ApprovalOption[];
  plan?: string;
}

export const ApprovalEvents = {
  requested: 'event.approval.requested',
  resolved: 'event.approval.resolved',
} as const;

export type ApprovalDecision = 'approved' | 'rejected' | 'cancelled';

/** A call remembered by `scope: session` (exact tool and subject). */
export interface RememberedCall {
  tool_name: string;
  subject?: string;
}

export interface ApprovalResolvedPayload {
  approval_id: string;
  agent_id: string;
  tool_call_id: string;
  decision: ApprovalDecision;
  /** Why a `cancelled` came from the server: `timed_out`, `turn_aborted`, `daemon_restarted`. */
  reason?: string;
  scope?: 'session';
  feedback?: string;
  selected_label?: string;
  /** Set with approved + scope session: later identical calls in the session are allowed. */
  remember?: RememberedCall;
  resolved_at: string;
}
