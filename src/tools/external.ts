import type { ToolOutcome } from '../engine/tools.ts';
import type { ToolSpec } from '../providers/wire/types.ts';

/** A tool a session offers from outside the built-in registry (an MCP server's). */
export interface ExternalTool {
  name: string;
  description: string;
  spec: ToolSpec;
  /** The MCP server it comes from (`mcp_server_id` of the tool descriptor); absent for ReadMcpResource, which reaches several. */
  serverId?: string;
  /** Never changes anything (the permission gate treats it like Read); default false. */
  readOnly?: boolean;
}

/** What an external call gets besides its input. */
export interface ExternalCall {
  signal: AbortSignal;
  agentId: string;
  turnId?: string;
  toolCallId: string;
  /** Publishes a volatile `tool.progress` for this call. */
  progress(payload: Record<string, unknown>): void;
}

/**
 * Tools from outside the registry, per session (src/mcp/ provides them). The executor applies
 * the same [tools] lists, prompt `disabled_tools`, scopes and permission gate as to built-ins,
 * then calls `call`, which never throws.
 */
export interface ExternalTools {
  /** Waits until the session's external tools are known (servers started or failed). */
  ready(sessionId: string): Promise<void>;
  list(sessionId: string): ExternalTool[];
  /** Whether `name` belongs to this source (it may still be unavailable). */
  has(sessionId: string, name: string): boolean;
  call(sessionId: string, name: string, input: unknown, ctx: ExternalCall): Promise<ToolOutcome>;
}
