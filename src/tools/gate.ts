import type { ToolCall } from '../engine/tools.ts';

export type GateDecision = { decision: 'allow' } | { decision: 'deny'; message: string };

/**
 * The permission check run before each tool call (src/permissions provides it as the
 * executor's `permissions`). Optional: without one every call is allowed.
 */
export interface ToolGate {
  check(sessionId: string, call: ToolCall, ctx: GateContext, signal?: AbortSignal): Promise<GateDecision>;
}

/** What the gate needs to know beyond the call (read-only tools skip approval in manual mode). */
export interface GateContext {
  turnId?: string;
  agentId: string;
  readOnly: boolean;
  /** A PreToolUse hook's verdict: `allow` skips the approval question, `ask` asks even where no question would be asked. Deny rules still deny. */
  hook?: 'allow' | 'ask';
}

/** The gate among `deps` when the permissions module provides one. */
export function gateOf(deps: object): ToolGate | undefined {
  const p = (deps as { permissions?: Partial<ToolGate> }).permissions;
  return p && typeof p.check === 'function' ? (p as ToolGate) : undefined;
}
