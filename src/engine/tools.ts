import type { SubagentLauncher } from '../agents/launcher.ts';
import type { ToolSpec } from '../providers/wire/types.ts';

/** A tool call the model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolOutcome {
  /** The text the model reads (and the `tool.result` event carries). */
  content: string;
  is_error: boolean;
  /**
   * Images the model gets with the text (Read of an image file; MCP image results). The turn
   * stores each as session media and journals the result as text and image parts by id; the
   * request fits them like any image (src/media/model-media.ts).
   */
  images?: ToolImage[];
}

/** An image of a tool result. `full_resolution`: `[image] max_edge_px` does not apply (Read's full-resolution read-back). */
export interface ToolImage {
  bytes: Buffer;
  media_type: string;
  full_resolution?: boolean;
}

/**
 * The seam between the loop and tool execution (issue 4 plugs the real tools in here).
 * `specs` are offered to the model; `run` executes one call and never throws. The engine running
 * the turn passes its subagent launcher with each call (the port the Agent tools use).
 */
export interface ToolExecutor {
  specs(sessionId: string, disabled: readonly string[], scope?: ToolScope): ToolSpec[];
  run(sessionId: string, call: ToolCall, signal: AbortSignal, scope: ToolScope | undefined, subagents: SubagentLauncher): Promise<ToolOutcome>;
  /** Waits until the session's tools are known (MCP servers starting with the runtime); called before each model request. */
  ready?(sessionId: string): Promise<void>;
}

/** Who calls and which tools it may use (subagents and `:btw` agents get a subset). */
export interface ToolScope {
  agentId: string;
  turnId?: string;
  /** When set, only these tools are offered and run. */
  only?: readonly string[];
  /** Never offered nor run for this agent. */
  exclude?: readonly string[];
  /** The prompt's `disabled_tools` (checked again when a call runs). */
  disabled?: readonly string[];
}
