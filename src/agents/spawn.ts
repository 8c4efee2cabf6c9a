import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { Message, TurnEndedPayload } from '../../protocol/events/turns.ts';
import type { Usage } from '../../protocol/events/common.ts';
import { clientFor, type ClientCache, type TokenSource } from '../engine/model-resolve.ts';
import type { ToolExecutor } from '../engine/tools.ts';
import { runTurn, type LoopLimits, type TurnDeps, type TurnOutcome } from '../engine/turn.ts';
import { subagentSystemPrompt } from '../engine/system-prompt.ts';
import { overheadTokens } from '../engine/compaction/budget.ts';
import { budgetFor, ContextGauge, contextHooks } from '../engine/compaction/runtime.ts';
import { truncateHead } from '../tools/truncate.ts';
import type { SubagentFailure, SubagentSpawnedPayload } from '../../protocol/events/subagents.ts';
import type { BoundModel } from './pool.ts';
import { SubagentTask } from './subagent-task.ts';
import type { NewEvent } from '../../protocol/events/registry.ts';
import type { TaskService } from '../tasks/service.ts';
import type { SpawnRequest, SubagentLauncher, SubagentSettlement } from './launcher.ts';

export type { SpawnRequest, SubagentSettlement };

const EVENT_RESULT_BUDGET = 100_000;
const ZERO: Usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };

/** Tools a spawned subagent never gets: no nesting, no user interaction of its own. */
export const SUBAGENT_EXCLUDED_TOOLS = ['Agent', 'AgentDynamicWorkflow', 'AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode'];

export const effortLabel = (b: BoundModel): string => (b.thinking.enabled ? b.thinking.effort ?? 'default' : 'off');

/** What subagents run with: a turn's deps, the tasks they are tracked as, and the engine's tools and limits. */
export interface SubagentDeps extends TurnDeps {
  tasks: Pick<TaskService, 'newId' | 'logFile' | 'register'>;
  config: ConfigService;
  auth: TokenSource;
  clients: ClientCache;
  log: Logger;
  tools: ToolExecutor;
  /** The engine's loop limits, read per spawn. */
  limits(): LoopLimits;
  /** The daemon is stopping: a running subagent's turn is left open in the journal. */
  stopping(): boolean;
  /** The system prompt of the session's main agent, when its runtime is loaded. */
  parentSystem(sessionId: string): string | undefined;
}

/**
 * The engine's subagent launcher: each subagent is a task (kind subagent) running one turn of its
 * own agent with a fresh history (the prompt), its events on the session stream under its agent_id.
 */
export class Subagents implements SubagentLauncher {
  constructor(private readonly deps: SubagentDeps) {}

  async spawn(req: SpawnRequest): Promise<{ task: SubagentTask; settled: Promise<SubagentSettlement> }> {
    return spawnSubagent(this.deps, this, req);
  }
}

async function spawnSubagent(deps: SubagentDeps, launcher: SubagentLauncher, req: SpawnRequest): Promise<{ task: SubagentTask; settled: Promise<SubagentSettlement> }> {
  const agentId = deps.ids.next('agent');
  const taskId = deps.tasks.newId();
  const task = new SubagentTask({
    id: taskId, sessionId: req.sessionId, description: req.description, logFile: await deps.tasks.logFile(req.sessionId, taskId),
    agentId, subagentType: req.subagentType, model: req.bound.model.alias, thinkingEffort: effortLabel(req.bound),
    ...(req.parentToolCallId ? { parentToolCallId: req.parentToolCallId } : {}), background: req.background, now: () => deps.clock.now(),
  });
  const spawned: SubagentSpawnedPayload = {
    agent_id: agentId, kind: 'task', parent_agent_id: req.parentAgentId, description: req.description, subagent_type: req.subagentType,
    model: req.bound.model.alias, thinking_effort: effortLabel(req.bound), task_id: taskId, background: req.background,
    ...(req.parentTurnId ? { parent_turn_id: req.parentTurnId } : {}), ...(req.parentToolCallId ? { parent_tool_call_id: req.parentToolCallId } : {}),
  };
  await deps.journal.append([{ stream: req.sessionId, type: 'subagent.spawned', payload: spawned }]);
  await deps.tasks.register(task);
  const settled = run(deps, launcher, req, task);
  return { task, settled };
}

async function run(deps: SubagentDeps, launcher: SubagentLauncher, req: SpawnRequest, task: SubagentTask): Promise<SubagentSettlement> {
  const agentId = task.spec.agentId;
  const turnId = deps.ids.next('turn');
  const started = Date.now();
  const timeoutMs = req.timeout?.ms ?? deps.config.current().subagent.timeout_ms;
  const timeoutSetting = req.timeout?.setting ?? '[subagent] timeout_ms';
  const timer = timeoutMs > 0 ? setTimeout(() => task.stop('timeout'), timeoutMs) : undefined;
  const emit = (events: NewEvent[]) => deps.journal.append(events.map((e) => ({ stream: req.sessionId, ...e })));
  let outcome: TurnOutcome | null = null;
  let history: Message[] = [];
  try {
    const user: Message = {
      id: deps.ids.next('msg'), session_id: req.sessionId, role: 'user', content: [{ type: 'text', text: req.prompt }], created_at: deps.clock.now().toISOString(),
    };
    history = [user];
    await emit([
      { type: 'subagent.started', payload: { agent_id: agentId, turn_id: turnId } },
      { type: 'turn.started', payload: { agent_id: agentId, turn_id: turnId, prompt_id: task.spec.id, prompt_ids: [], model: req.bound.model.alias, started_at: user.created_at, prompt: req.prompt } },
      { type: 'message.created', payload: { agent_id: agentId, turn_id: turnId, message: user } },
    ]);
    const client = await clientFor(deps, req.bound.model, deps.clients);
    const parentSystem = deps.parentSystem(req.sessionId);
    const system = parentSystem !== undefined ? subagentSystemPrompt(parentSystem) + (req.instructions ?? '') : undefined;
    const toolScope = { exclude: SUBAGENT_EXCLUDED_TOOLS, ...(req.only ? { only: req.only } : {}) };
    // The subagent's own history compacts like the main agent's, with its bound model's window.
    const context = contextHooks({
      deps, sessionId: req.sessionId, agentId, history, gauge: new ContextGauge(history), signal: task.controller.signal,
      budget: budgetFor(deps.config, req.bound.model.alias), client: async () => client,
      overhead: () => overheadTokens(system, deps.tools.specs(req.sessionId, req.disabledTools ?? [], { agentId, ...toolScope })),
    });
    outcome = await runTurn({
      deps, sessionId: req.sessionId, turnId, history, client, thinking: req.bound.thinking, tools: deps.tools, subagents: launcher, disabledTools: req.disabledTools ?? [],
      agentId, toolScope, limits: deps.limits(), signal: task.controller.signal, takeSteered: () => [], closing: () => deps.stopping(),
      ...(system !== undefined ? { system: () => system } : {}), beforeStep: () => context.beforeStep(), context: context.context,
    });
  } catch (err) {
    outcome = { reason: 'failed', error: { kind: 'internal', message: (err as Error).message }, usage: { ...ZERO }, steps: 0 };
  } finally {
    clearTimeout(timer);
  }
  if (!outcome) return suspend(deps, req, task, emit);
  const ended: TurnEndedPayload = { agent_id: agentId, turn_id: turnId, prompt_id: task.spec.id, ...outcome, ended_at: deps.clock.now().toISOString() };
  if (outcome.reason === 'completed') {
    const result = finalText(history) || '(the subagent finished without a text answer)';
    await emit([
      { type: 'turn.ended', payload: ended },
      {
        type: 'subagent.completed',
        payload: { agent_id: agentId, task_id: task.spec.id, turn_id: turnId, result: truncateHead(result, EVENT_RESULT_BUDGET), usage: outcome.usage, steps: outcome.steps, duration_ms: Date.now() - started },
      },
    ]);
    await task.settle('completed', result);
    return { status: 'completed', result };
  }
  const reason: SubagentFailure = task.stopReason === 'timeout' ? 'timed_out' : outcome.reason === 'cancelled' ? 'cancelled' : 'failed';
  const message = reason === 'timed_out' ? `the subagent exceeded ${timeoutSetting} (${timeoutMs} ms)`
    : reason === 'cancelled' ? 'the subagent was cancelled' : outcome.error?.message ?? 'the subagent failed';
  await emit([
    { type: 'turn.ended', payload: ended },
    { type: 'subagent.failed', payload: { agent_id: agentId, task_id: task.spec.id, turn_id: turnId, reason, ...(outcome.error ? { error: { kind: outcome.error.kind, message: outcome.error.message } } : {}) } },
  ]);
  await task.settle(reason === 'cancelled' ? 'cancelled' : 'failed', `[${reason}] ${message}`);
  return { status: 'failed', reason, message };
}

/** The daemon is stopping: the turn stays open in the journal and the next start reports it interrupted. */
async function suspend(deps: SubagentDeps, req: SpawnRequest, task: SubagentTask, emit: (e: NewEvent[]) => Promise<unknown>): Promise<SubagentSettlement> {
  await emit([{ type: 'subagent.suspended', payload: { agent_id: task.spec.agentId, task_id: task.spec.id, reason: 'daemon_stopping' } }])
    .catch((err) => deps.log.warn({ session_id: req.sessionId }, `subagent.suspended not journaled: ${String(err)}`));
  await task.settle('cancelled', '[interrupted] the daemon stopped while the subagent ran');
  return { status: 'failed', reason: 'interrupted', message: 'the daemon stopped while the subagent ran' };
}

/** The text of the subagent's last assistant message (its answer to the caller). */
function finalText(history: Message[]): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== 'assistant' || m.metadata?.interrupted) continue;
    const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    if (text) return text;
  }
  return '';
}
