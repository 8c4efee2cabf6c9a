import { dangerousReason } from './dangerous.ts';
import { firstMatch, PATH_TOOLS } from './rules.ts';
import type { PermissionMode, PermissionRule } from './types.ts';
import type { RememberedCall } from '../../protocol/events/approvals.ts';

export interface PolicyInput {
  mode: PermissionMode;
  /** Plan mode is on: only read-only tools run, whatever the mode. */
  planMode?: boolean;
  rules: PermissionRule[];
  remembered: RememberedCall[];
  guard: boolean;
  name: string;
  subject: string | undefined;
  readOnly: boolean;
  /** Absolute path subjects outside the workspace (file tools). */
  outsideWorkspace?: boolean;
}

export const PLAN_MODE_DENIAL = 'plan mode is on: only read-only tools may run while planning. '
  + 'Explore and write your plan, then call ExitPlanMode with your plan first; the user reviews it before any change is made';

export type PolicyOutcome = { decision: 'allow' | 'ask'; why: string } | { decision: 'deny'; why: string };

/**
 * The decision, in this order:
 * 1. a deny rule denies in every mode (yolo included);
 * 2. plan mode denies every tool that is not read-only (yolo included);
 * 3. yolo allows everything else (never asks; the dangerous guard is off in never-ask mode);
 * 4. a call approved earlier with `scope: session` (same tool, same subject) is allowed;
 * 5. a dangerous Bash command asks when the guard is on, even if an allow rule matched;
 * 6. the first matching allow/ask rule decides;
 * 7. no rule: read-only tools are allowed; manual asks for everything else; auto allows
 *    edits inside the workspace and other built-in tools, and asks for Bash, MCP tools and
 *    file edits outside the workspace.
 */
export function decide(i: PolicyInput): PolicyOutcome {
  const rule = firstMatch(i.rules, i.name, i.subject);
  if (rule?.decision === 'deny') return { decision: 'deny', why: `denied by permission rule ${rule.pattern}${rule.reason ? ` (${rule.reason})` : ''}` };
  if (i.planMode && !i.readOnly) return { decision: 'deny', why: PLAN_MODE_DENIAL };
  if (i.mode === 'yolo') return { decision: 'allow', why: 'yolo mode' };
  if (i.remembered.some((r) => r.tool_name === i.name && r.subject === i.subject)) return { decision: 'allow', why: 'approved for the session' };
  const danger = i.guard && i.name === 'Bash' && i.subject ? dangerousReason(i.subject) : undefined;
  if (danger) return { decision: 'ask', why: `dangerous command: ${danger}` };
  if (rule) return { decision: rule.decision, why: `permission rule ${rule.pattern}` };
  if (i.readOnly) return { decision: 'allow', why: 'read-only tool' };
  if (i.mode === 'manual') return { decision: 'ask', why: 'manual mode' };
  if (i.name === 'Bash' || i.name.startsWith('mcp__')) return { decision: 'ask', why: 'auto mode asks for commands and MCP tools' };
  if (PATH_TOOLS.has(i.name) && i.outsideWorkspace) return { decision: 'ask', why: 'auto mode asks for edits outside the workspace' };
  return { decision: 'allow', why: 'auto mode' };
}
