import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { Message } from '../../protocol/events/turns.ts';
import type { SubagentLauncher } from '../agents/launcher.ts';
import type { ConfigService } from '../config/service.ts';
import type { HookRunner } from '../hooks/runner.ts';
import type { Logger } from '../lib/logger.ts';
import type { ThinkingRequest } from '../providers/wire/types.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { TaskNotifier } from '../tasks/notify.ts';
import type { CompactionDeps } from './compaction/compact.ts';
import type { ClientCache, ResolvedModel, TokenSource } from './model-resolve.ts';
import type { PromptRecord } from './prompt-state.ts';
import type { ToolExecutor, ToolScope } from './tools.ts';
import type { LoopLimits } from './turn.ts';

// The shapes a session runtime (runtime.ts) is built with and keeps per turn.

export type ToolScopeLimits = Pick<ToolScope, 'only' | 'exclude'>;

/** Per-turn choices made at acceptance (model, thinking, disabled tools). */
export interface TurnPlan {
  model: ResolvedModel;
  thinking: ThinkingRequest;
  disabledTools: string[];
  /** A bound profile's tools (docs/agents.md): narrows what the agent is offered. */
  only?: readonly string[];
  /** Added to the system prompt of this turn's requests: the skills section and a bound profile's instructions. */
  instructions?: string;
}

export interface ActiveTurn {
  turnId: string;
  prompt: PromptRecord;
  controller: AbortController;
  /** Prompts steered in and not yet folded into the history. */
  steered: Array<{ prompt_id: string; message: Message }>;
  /** Every prompt this turn consumes (completed together when it ends). */
  prompts: PromptRecord[];
  plan: TurnPlan;
}

/** What a session runtime runs its turns and compactions with (built once by EngineRegistry). */
export interface RuntimeDeps extends CompactionDeps {
  sessions: SessionIndex;
  live: LiveSessions;
  config: ConfigService;
  auth: TokenSource;
  log: Logger;
  tools: ToolExecutor;
  clients: ClientCache;
  subagents: SubagentLauncher;
  limits: () => LoopLimits;
  /** UserPromptSubmit and Stop hooks (docs/hooks.md). */
  hooks?: Pick<HookRunner, 'run'>;
  /** Task notes waiting for the main agent: a turn takes them before each step (src/tasks/notify.ts). */
  notes?: Pick<TaskNotifier, 'take'>;
}

/** Which agent a runtime drives: the main agent, or a `:btw` agent with its own tools. */
export interface AgentSpec {
  id: string;
  toolScope?: ToolScopeLimits;
  /** The agent's system prompt; `recorded` false = journaled with the next turn's first batch. */
  system?: { text: string; recorded: boolean; identity: { name: string; slug: string } };
}
