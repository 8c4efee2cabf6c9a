import type * as v from 'valibot';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { SubagentLauncher } from '../agents/launcher.ts';
import type { EventJournal } from '../events/journal.ts';
import type { TokenSource } from '../engine/model-resolve.ts';
import type { PermissionService } from '../permissions/service.ts';
import type { QuestionService } from '../questions/service.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { SkillDeps } from '../skills/catalog.ts';
import type { TaskService } from '../tasks/service.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import type { Confine, ConfinedPath } from '../fs/confine.ts';
import type { FileHistoryProjection } from '../../projections/file-history/projection.ts';
import type { WebFetchLimits } from '../webfetch/page.ts';

/** The services built-in tools call (`ctx.deps`). */
export interface ToolDeps extends SkillDeps {
  journal: EventJournal;
  live: LiveSessions;
  tasks: TaskService;
  questions: QuestionService;
  permissions: PermissionService;
  auth: TokenSource;
  /** The per-turn file history: Bash checks whether the files it holds still exist (file-history.ts). */
  fileHistory: Pick<FileHistoryProjection, 'read' | 'existingPaths'>;
  /** Bounds of WebFetch when it fetches pages itself (src/webfetch/). */
  webFetch: WebFetchLimits;
}

/** What a tool may use while it runs; every path goes through `confine`. */
export interface ToolContext {
  deps: ToolDeps;
  /** Starts subagents (Agent, AgentDynamicWorkflow): the launcher of the engine running the turn. */
  subagents: SubagentLauncher;
  session: SessionRecord;
  signal: AbortSignal;
  config: ResolvedConfig;
  /** Resolves a model-given path inside the workspace or its additional dirs (41304 otherwise). */
  confine(given: string): Promise<ConfinedPath>;
  /** `confine` for many paths: the allowed roots resolved once for all of them. */
  confiner(): Promise<Confine>;
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
  /**
   * Why the tool cannot work under this config (a service it needs is not configured), or undefined when it can.
   * Such a tool is not offered to the model, is listed inactive with the reason, and a call to it is refused.
   */
  unavailable?(config: ResolvedConfig): string | undefined;
  /** The schema offered to the model when it depends on the config (validation still uses `schema`). */
  offeredSchema?(config: ResolvedConfig): v.GenericSchema;
  run(input: I, ctx: ToolContext): Promise<string>;
}

export const defineTool = <I>(def: ToolDef<I>): ToolDef<I> => def;
