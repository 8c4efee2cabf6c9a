import type * as v from 'valibot';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { AppContext } from '../app/context.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import type { ConfinedPath } from '../fs/confine.ts';

/** What a tool may use while it runs; every path goes through `confine`. */
export interface ToolContext {
  app: AppContext;
  session: SessionRecord;
  signal: AbortSignal;
  config: ResolvedConfig;
  /** Resolves a model-given path inside the workspace or its additional dirs (41304 otherwise). */
  confine(given: string): Promise<ConfinedPath>;
  /** The model's id of this call (tool_call_id). */
  toolCallId?: string;
  /** The agent making the call: `main`, or a subagent's id. */
  agentId: string;
  /** The turn the call belongs to, when known. */
  turnId?: string;
  /** Publishes a volatile `tool.progress` for this call. */
  progress(payload: Record<string, unknown>): void;
}

/** A failure the model should see as the tool result text (is_error). */
export class ToolError extends Error {}

export interface ToolDef<I = any> {
  name: string;
  description: string;
  /** Validates the input; its JSON schema is what the model is offered. */
  schema: v.GenericSchema<unknown, I>;
  readOnly: boolean;
  /** Whether the tool is offered in this session at all (default: always). */
  enabledFor?(session: SessionRecord): boolean;
  /** The schema offered to the model when it depends on the config (validation still uses `schema`). */
  offeredSchema?(config: ResolvedConfig): v.GenericSchema;
  run(input: I, ctx: ToolContext): Promise<string>;
}

export const defineTool = <I>(def: ToolDef<I>): ToolDef<I> => def;
