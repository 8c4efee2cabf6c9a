import type { ApprovalOption } from '../../protocol/events/approvals.ts';

/**
 * The permission gate the tool executor calls before running each tool:
 *
 *   permissions.check(sessionId, call, ctx, signal): Promise<PermissionDecision>
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
  /** A PreToolUse hook's verdict (docs/hooks.md): `allow` answers a question the mode would ask; `ask` asks where the mode would allow. */
  hook?: 'allow' | 'ask';
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
  /** Part B `scope` (default `user`): rules of a narrower scope are matched first (rules.ts `RULE_SCOPES`). */
  scope?: RuleScope;
}

export type RuleScope = 'turn-override' | 'session-runtime' | 'project' | 'user';

/** What a review (`PermissionService.review`) shows besides the call: the choices and the plan. */
export interface ReviewRequest {
  action: string;
  /** The text of `tool_input_display`. */
  display: string;
  options?: ApprovalOption[];
  plan?: string;
}

