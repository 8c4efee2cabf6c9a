import { trackWork, workChangedEvents } from '../sessions/interaction.ts';
import { CompactionSlot } from './compaction/slot.ts';
import { budgetFor, compactAgent, ContextGauge, contextHooks, MANUAL_POLICY, type AgentContext } from './compaction/runtime.ts';
import { overheadTokens } from './compaction/budget.ts';
import type { Message, TurnEndedPayload } from '../../protocol/events/turns.ts';
import { PLAN_MODE_REMINDER, SYSTEM_PROMPT_EVENT } from './system-prompt.ts';
import { clientNow, type ResolvedModel } from './model-resolve.ts';
import { planUndo, undonePayload, type UndoPlan } from './undo.ts';
import { promptText, toPromptObject, type PromptRecord } from './prompt-state.ts';
import { narrowTools } from '../agents/profile.ts';
import { MAIN_AGENT, runTurn, type TurnOutcome } from './turn.ts';
import { logFailure } from '../lib/logger.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import type { ActiveTurn, AgentSpec, RuntimeDeps, ToolScopeLimits, TurnPlan } from './runtime-types.ts';
import {
  answerOpenCalls, clientFailure, clientOrFailure, crashedTurnEnded, hookSite, promptHooks, sessionAgentSettings, turnSettings, type TurnSite,
} from './turn-edges.ts';

export type { AgentSpec, RuntimeDeps, TurnPlan } from './runtime-types.ts';

/**
 * The live part of one session: its prompt queue, its history in memory and the main
 * turn loop. Created on the first prompt; durable facts go to the session's journal.
 */
export class SessionRuntime {
  readonly prompts = new Map<string, PromptRecord>();
  /** prompt_ids being validated right now (a concurrent duplicate gets 40927). */
  readonly reserved = new Set<string>();
  private readonly queue: Array<{ prompt: PromptRecord; plan: TurnPlan }> = [];
  private active?: ActiveTurn;
  /** A manual compaction in progress: prompts queue behind it and the session is busy. */
  private readonly compaction: CompactionSlot;
  /** The context size the automatic compactions go by. */
  private readonly gauge: ContextGauge;
  private draining?: Promise<void>;
  private closed = false;

  constructor(
    private readonly deps: RuntimeDeps, readonly sessionId: string, readonly workspaceId: string, readonly history: Message[],
    private readonly agent: AgentSpec = { id: MAIN_AGENT },
  ) {
    this.compaction = new CompactionSlot(deps, sessionId);
    this.gauge = new ContextGauge(history);
  }

  get agentId(): string {
    return this.agent.id;
  }

  /** The system prompt this agent runs with (what a `:btw` fork or a subagent starts from). */
  get systemPrompt(): string | undefined {
    return this.agent.system?.text;
  }

  /** The tools this agent is limited to, whatever the prompt (a `:btw` agent's). */
  get toolScope(): ToolScopeLimits | undefined {
    return this.agent.toolScope;
  }

  /** The recording event of the system prompt when not journaled yet (then it counts as journaled). */
  private systemPromptEvents(): NewStreamEvent[] {
    const sys = this.agent.system;
    if (!sys || sys.recorded) return [];
    sys.recorded = true;
    return [{ stream: this.sessionId, type: SYSTEM_PROMPT_EVENT, payload: { agent_id: this.agentId, text: sys.text, identity: sys.identity } }];
  }

  private get isMain(): boolean {
    return this.agent.id === MAIN_AGENT;
  }

  get busy(): boolean {
    return this.active !== undefined || this.queue.length > 0 || this.compaction.active;
  }

  /** The running turn's id; undefined between turns. */
  get activeTurnId(): string | undefined {
    return this.active?.turnId;
  }

  /** Prompts queued to run as turns after the current one. */
  get queuedTurns(): number {
    return this.queue.length;
  }

  /** Nothing running or about to: not busy, no drain settling, no prompt being validated (so it may be unloaded). */
  get idle(): boolean {
    return !this.busy && this.draining === undefined && this.reserved.size === 0;
  }

  /**
   * `:compact` (the caller checked the session is idle and has something to compact): runs
   * in the background, the session busy meanwhile; prompts arriving queue behind it.
   */
  startCompaction(model: ResolvedModel, instruction?: string): void {
    this.compaction.start(
      async (signal) => { await compactAgent(this.agentContext(model, [], signal), 'manual', MANUAL_POLICY, instruction); },
      // A queued prompt's turn takes the busy over without an idle flip (see turn()).
      () => this.queue.length > 0 && !this.closed,
    );
  }

  /** This agent's context as its compactions see it, with the model (and tools) of the turn or the `:compact`. */
  private agentContext(model: ResolvedModel, disabledTools: readonly string[], signal: AbortSignal, plan?: TurnPlan): AgentContext {
    const scope = { agentId: this.agentId, ...this.turnScope(plan) };
    return {
      deps: this.deps, sessionId: this.sessionId, agentId: this.agentId, history: this.history, gauge: this.gauge, signal,
      budget: budgetFor(this.deps.config, model.alias), client: () => clientOrFailure(this.deps, model),
      overhead: () => overheadTokens(this.requestSystem(), this.deps.tools.specs(this.sessionId, disabledTools, scope)),
    };
  }

  /** The agent's own tool limits, narrowed by the turn's profile. */
  private turnScope(plan?: TurnPlan): ToolScopeLimits | undefined {
    const only = narrowTools(this.agent.toolScope?.only, plan?.only);
    if (!only) return this.agent.toolScope;
    return { ...this.agent.toolScope, only };
  }

  /**
   * `:undo` of the last `count` turns: the history changes at once (no await since the
   * caller's busy check), the `session.undone` event is written behind. `events` is the
   * session journal, read by the caller before its check.
   */
  undo(count: number, events: Array<{ type: string; payload: any }>): { plan: UndoPlan; written?: Promise<unknown> } {
    const plan = planUndo(this.history, count);
    if (!plan.ok) return { plan };
    const payload = undonePayload(plan, events);
    this.history.splice(0, this.history.length, ...plan.remaining);
    this.gauge.reset();
    return { plan, written: this.deps.journal.append([{ stream: this.sessionId, type: 'session.undone', payload }]) };
  }

  /** Queues an accepted prompt and starts the loop when idle. Returns its status at acceptance. */
  enqueue(prompt: PromptRecord, plan: TurnPlan): 'running' | 'queued' {
    const status = this.busy ? 'queued' : 'running';
    prompt.status = 'queued';
    this.prompts.set(prompt.prompt_id, prompt);
    this.queue.push({ prompt, plan });
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
    return status;
  }

  listPrompts() {
    return {
      active: this.active ? toPromptObject(this.active.prompt, 'running') : null,
      queued: this.queue.map((q) => toPromptObject(q.prompt, 'queued')),
    };
  }

  isQueued(promptId: string): boolean {
    return this.queue.some((q) => q.prompt.prompt_id === promptId);
  }

  /**
   * Folds queued prompts into the active turn. With no active turn (between two
   * turns) they move to the front of the queue and run next, in the given order.
   */
  steer(ids: string[]): void {
    const taken = ids.flatMap((id) => {
      const i = this.queue.findIndex((q) => q.prompt.prompt_id === id);
      return i < 0 ? [] : this.queue.splice(i, 1);
    });
    const turn = this.active;
    if (!turn) {
      this.queue.unshift(...taken);
      return;
    }
    for (const { prompt } of taken) {
      prompt.status = 'running';
      turn.prompts.push(prompt);
      turn.steered.push({ prompt_id: prompt.prompt_id, message: this.userMessage(prompt) });
    }
  }

  /** Aborts a queued prompt (dropped) or the turn running it. */
  async abortPrompt(promptId: string): Promise<void> {
    const i = this.queue.findIndex((q) => q.prompt.prompt_id === promptId);
    if (i >= 0) {
      const [{ prompt }] = this.queue.splice(i, 1);
      prompt.status = 'aborted';
      await this.deps.journal.append([{ stream: this.sessionId, type: 'prompt.aborted', payload: { agent_id: this.agentId, prompt_id: promptId, reason: 'user' } }]);
      return;
    }
    if (this.active?.prompts.some((p) => p.prompt_id === promptId)) this.abortTurn();
  }

  /** Cancels the running main turn (its model request is aborted); a no-op when idle. */
  abortTurn(): void {
    this.active?.controller.abort();
    this.compaction.abort();
  }

  /** Stops without journaling: an open turn is ended as interrupted by the next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    this.active?.controller.abort();
    await this.compaction.close();
    await this.draining;
  }

  private userMessage(p: PromptRecord): Message {
    return {
      id: p.user_message_id, session_id: this.sessionId, role: 'user', content: p.content, created_at: p.created_at, prompt_id: p.prompt_id,
      ...(p.metadata ? { metadata: p.metadata } : {}),
    };
  }

  private async drain(): Promise<void> {
    // A prompt enqueued while the idle state is being journaled must not be stranded.
    do await this.drainOnce();
    while (this.queue.length && !this.closed);
  }

  private async drainOnce(): Promise<void> {
    // Prompts accepted during a compaction run on the compacted context.
    await this.compaction.settled();
    while (this.queue.length && !this.closed) {
      const { prompt, plan } = this.queue.shift()!;
      // Another agent's turn (`:btw`) makes the session busy without a main turn.
      const work = this.isMain ? undefined : `agent:${this.agentId}`;
      try {
        // Not awaiting prompt.accepted: the turn's own appends queue behind it, and its deltas wait for both.
        if (this.closed) return;
        if (work) await trackWork(this.deps, this.sessionId, work, true);
        await this.turn(prompt, plan);
      } catch (err) {
        this.deps.log.error({ err: { message: (err as Error).message, stack: (err as Error).stack }, session_id: this.sessionId }, 'turn crashed');
        await this.endCrashedTurn(prompt, err as Error);
      } finally {
        if (work && !this.closed) await trackWork(this.deps, this.sessionId, work, false).catch(logFailure(this.deps.log, 'journaling the end of a turn\'s work', { session_id: this.sessionId }));
      }
    }
    // A prompt queued behind a compaction and aborted before its turn: the compaction still holds busy.
    await this.compaction.release(true);
    // A queued prompt aborted while the last turn ended leaves the session busy: publish idle now.
    const deps = this.deps;
    const state = deps.live.get(this.sessionId);
    if (this.isMain && !this.closed && !this.active && state?.main_turn_active) {
      this.live(false, state.model ?? '');
      await deps.journal.append(this.workEvents());
    }
  }

  private async turn(prompt: PromptRecord, plan: TurnPlan): Promise<void> {
    const deps = this.deps;
    deps.tracer.mark(this.sessionId, 'turn.start');
    const active: ActiveTurn = { turnId: deps.ids.next('turn'), prompt, controller: new AbortController(), steered: [], prompts: [prompt], plan };
    const at = this.site(active.turnId);
    this.active = active;
    prompt.status = 'running';
    const user = this.userMessage(prompt);
    this.history.push(user);
    const wasBusy = !this.isMain || (deps.live.get(this.sessionId)?.main_turn_active ?? false);
    this.live(true, plan.model.alias);
    void this.compaction.release(false);
    // Step 1's step.started joins the turn's first batch when the client is at hand (the turn will
    // run a step) and no auto-compaction goes first.
    const known = clientNow(plan.model, this.deps.clients);
    const context = contextHooks(this.agentContext(plan.model, plan.disabledTools, active.controller.signal, plan));
    const scope = this.turnScope(plan);
    const stepOne = known !== undefined && !context.due();
    // Not awaited: the model request need not wait for the disk. The journal commits in order, and
    // the turn publishes no delta before its first step's events are on disk (see runTurn).
    const started = Promise.all([prompt.accepted, deps.journal.append(this.openingEvents(active, user, stepOne, wasBusy))]);
    started.catch(() => undefined); // awaited below; this only keeps an early failure from being reported as unhandled
    let outcome: TurnOutcome | null;
    deps.tracer.mark(this.sessionId, 'turn.appendCalled');
    const blocked = await promptHooks(deps, at, prompt, active.controller.signal);
    const client = blocked ?? known ?? await clientOrFailure(deps, plan.model);
    deps.tracer.mark(this.sessionId, 'turn.client');
    if (!('stream' in client)) {
      await started;
      outcome = clientFailure(client);
    } else {
      outcome = await runTurn({
        deps, sessionId: this.sessionId, turnId: at.turnId, history: this.history, client, thinking: plan.thinking, tools: deps.tools, subagents: deps.subagents, started, stepOneStarted: stepOne,
        disabledTools: plan.disabledTools, limits: this.deps.limits(), signal: active.controller.signal,
        agentId: this.agentId, ...(scope ? { toolScope: scope } : {}),
        takeSteered: () => active.steered.splice(0), closing: () => this.closed, system: () => this.requestSystem(),
        ...(this.isMain && deps.notes ? { takeNotes: () => deps.notes!.take(this.sessionId) } : {}),
        beforeStep: () => context.beforeStep(), context: context.context,
      });
    }
    if (outcome) await this.endTurn(active, outcome);
  }

  /** A turn's first batch: the system prompt when not recorded yet, turn.started, the user message, maybe step 1. */
  private openingEvents(active: ActiveTurn, user: Message, stepOne: boolean, wasBusy: boolean): NewStreamEvent[] {
    const { turnId, prompt, plan } = active;
    return [
      ...this.systemPromptEvents(),
      {
        stream: this.sessionId, type: 'turn.started',
        payload: {
          agent_id: this.agentId, turn_id: turnId, prompt_id: prompt.prompt_id, prompt_ids: [], model: plan.model.alias, started_at: this.deps.clock.now().toISOString(),
          prompt: promptText(prompt.content), ...turnSettings(this.deps, this.sessionId, plan),
        },
      },
      { stream: this.sessionId, type: 'message.created', payload: { agent_id: this.agentId, turn_id: turnId, message: user } },
      ...(stepOne ? [{ stream: this.sessionId, type: 'turn.step.started', payload: { agent_id: this.agentId, turn_id: turnId, step: 1 } } satisfies NewStreamEvent] : []),
      ...(wasBusy ? [] : this.workEvents()),
    ];
  }

  /** A turn that ran to its outcome: its prompts completed, turn.ended (and idle when nothing follows), the Stop hooks. */
  private async endTurn(active: ActiveTurn, outcome: TurnOutcome): Promise<void> {
    const deps = this.deps;
    const { turnId, prompt, plan } = active;
    for (const p of active.prompts) p.status = 'completed';
    const more = this.queue.length > 0 || !this.isMain;
    if (!more) this.live(false, plan.model.alias);
    const ended: TurnEndedPayload = { agent_id: this.agentId, turn_id: turnId, prompt_id: prompt.prompt_id, ...outcome, ended_at: deps.clock.now().toISOString() };
    await deps.journal.append([
      { stream: this.sessionId, type: 'turn.ended', payload: ended },
      ...(more ? [] : this.workEvents(ended.reason)),
    ]);
    this.active = undefined;
    deps.log.info({ session_id: this.sessionId, agent_id: this.agentId, turn_id: turnId, reason: outcome.reason, steps: outcome.steps }, 'turn ended');
    deps.tracer.mark(this.sessionId, 'turn.end');
    deps.tracer.flush(this.sessionId);
    // Not awaited: a slow Stop hook never holds the next turn.
    if (deps.hooks) void deps.hooks.run('Stop', hookSite(deps, this.site(turnId)), { reason: outcome.reason }).catch(logFailure(deps.log, 'running Stop hooks', { session_id: this.sessionId }));
  }

  private site(turnId: string): TurnSite {
    return { sessionId: this.sessionId, agentId: this.agentId, turnId };
  }

  /** A turn that threw still ends: failed in the journal (when it can still be written), and not busy. */
  private async endCrashedTurn(prompt: PromptRecord, err: Error): Promise<void> {
    const deps = this.deps;
    const active = this.active;
    this.active = undefined;
    for (const p of active?.prompts ?? [prompt]) p.status = 'completed';
    const more = this.queue.length > 0 || !this.isMain;
    if (!more) this.live(false, deps.live.get(this.sessionId)?.model ?? '');
    if (!active) return;
    const at = this.site(active.turnId);
    try {
      await deps.journal.append([
        ...answerOpenCalls(deps, at, this.history),
        { stream: this.sessionId, type: 'turn.ended', payload: crashedTurnEnded(deps, at, prompt.prompt_id, err) }, ...(more ? [] : this.workEvents('failed')),
      ]);
    } catch (appendErr) {
      deps.log.error({ err: { message: (appendErr as Error).message }, session_id: this.sessionId }, 'could not journal the end of a crashed turn');
    }
  }

  /** `work_changed` + `status_changed` from the live state (set by `live` just before). */
  private workEvents(mainTurnEnded?: 'completed' | 'cancelled' | 'failed') {
    return workChangedEvents(this.deps, this.sessionId, this.isMain ? mainTurnEnded : undefined);
  }

  /** Live state and work events describe the main agent only (`main_turn_active`). */
  private live(active: boolean, model: string): void {
    if (!this.isMain) return;
    const prev = this.deps.live.get(this.sessionId);
    this.deps.live.set(this.sessionId, { busy: active, main_turn_active: active, pending_interaction: prev?.pending_interaction ?? 'none', model });
  }

  /**
   * The system prompt of a request: the recorded one, then what the running turn adds (skills, a bound profile's
   * instructions; never recorded, so a resumed session keeps its prompt), plus the plan-mode reminder while plan mode is on.
   */
  private requestSystem(): string | undefined {
    const recorded = this.agent.system?.text;
    if (recorded === undefined) return undefined;
    const text = recorded + (this.active?.plan.instructions ?? '');
    return sessionAgentSettings(this.deps, this.sessionId).plan_mode ? text + PLAN_MODE_REMINDER : text;
  }
}
