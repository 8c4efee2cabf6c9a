import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { PromptAcceptedPayload } from '../../protocol/events/turns.ts';
import { assertPoolUsable } from '../agents/pool.ts';
import { settleOrphans } from '../agents/recover.ts';
import { quiet, sweepEveryMs } from './idle-runtimes.ts';
import { createBtwAgent, rebuildBtwAgent } from '../agents/btw.ts';
import { Subagents, type SubagentDeps } from '../agents/spawn.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import { loadMessages } from './history.ts';
import { buildSystemPrompt, SYSTEM_PROMPT_EVENT } from './system-prompt.ts';
import type { SystemPromptRecord } from '../../protocol/events/turns.ts';
import type { ClientCache, TokenSource } from './model-resolve.ts';
import type { CompactionDeps } from './compaction/compact.ts';
import { finishedPrompt } from './prompt-state.ts';
import { SessionRuntime, type RuntimeDeps } from './runtime.ts';
import type { ToolExecutor } from './tools.ts';
import type { HookRunner } from '../hooks/runner.ts';
import { MAIN_AGENT, type LoopLimits } from './turn.ts';
import { known } from '../../protocol/events/known.ts';
import { settleInterrupted, type InterruptCause } from './interrupted.ts';
import { Codes } from '../../protocol/codes.ts';
import type { SessionLeases } from '../nodes/leases.ts';

/** Newly created sessions remembered for a read-free first load (older ones load from the journal). */
const FRESH_MAX = 10_000;

/** The main-agent runtimes loaded in memory, by session id (kept by EngineRegistry; startServer builds it). */
export type LoadedRuntimes = Map<string, SessionRuntime>;

/** Told when a session's runtime loads and unloads (its MCP servers start and stop with it). */
export interface RuntimeLifecycle {
  loaded(session: SessionRecord): void;
  unloaded(sessionId: string): Promise<void>;
}

/** What the engine is built with. */
export interface EngineDeps extends CompactionDeps {
  sessions: SessionIndex;
  live: LiveSessions;
  config: ConfigService;
  auth: TokenSource;
  log: Logger;
  /** Model clients shared by every runtime, the prompt intake and title generation. */
  clients: ClientCache;
  tools: ToolExecutor;
  /** Subagents are tracked as tasks. */
  tasks: SubagentDeps['tasks'];
  runtimes: LoadedRuntimes;
  /** Parts whose life follows the runtime's (MCP servers). */
  lifecycle?: RuntimeLifecycle;
  /** SessionStart, UserPromptSubmit and Stop hooks (docs/hooks.md). */
  hooks?: Pick<HookRunner, 'run'>;
  /** Task notes waiting for a session's main agent (its turns take them before each step). */
  notes?: RuntimeDeps['notes'];
  /** The loop's timings (src/app/settings.ts, read at start; replay retries at once). */
  timings: EngineTimings;
  /** Which node runs each session (docs/scale-out.md "Leases"): a runtime loads only under this node's lease. */
  leases: Pick<SessionLeases, 'acquire' | 'release'>;
}

/** The agent loop's timings: retries' base delay, a quiet model stream's timeout and an idle runtime's unload (0: never). */
export interface EngineTimings {
  retryBaseMs: number;
  modelIdleTimeoutMs: number;
  runtimeIdleMs: number;
}

/**
 * The runtimes of live sessions. A runtime is created on a session's first prompt from its
 * journal (history and known prompt ids) and lives until close. The engine owns the subagent
 * launcher its turns hand to tool calls (src/agents/launcher.ts).
 */
export class EngineRegistry {
  private readonly runtimes: LoadedRuntimes;
  private readonly loading = new Map<string, Promise<SessionRuntime>>();
  private readonly retryBase: number;
  private readonly idleTimeout: number;
  private readonly subagents: Subagents;
  /** What every runtime of this engine runs with. */
  private readonly runtimeDeps: RuntimeDeps;

  /** Part B identity: resolved once at startup; edits apply to sessions started after a restart. */
  private readonly identity: { name: string; slug: string };

  /** Sessions created by this process, with the seq of their `session.created` (their stream holds nothing else yet). */
  private readonly fresh = new Map<string, number>();

  /** When each loaded session was last used or seen busy (ms). */
  private readonly lastUsed = new Map<string, number>();
  private readonly idleMs: number;
  private readonly sweeper?: NodeJS.Timeout;

  constructor(private readonly deps: EngineDeps) {
    this.runtimes = deps.runtimes;
    this.retryBase = deps.timings.retryBaseMs;
    this.idleTimeout = deps.timings.modelIdleTimeoutMs;
    this.idleMs = deps.timings.runtimeIdleMs;
    this.identity = { ...deps.config.current().identity };
    if (this.idleMs > 0) {
      this.sweeper = setInterval(() => void this.unloadIdle().catch((err) => deps.log.warn({ err }, 'unloading idle runtimes failed')), sweepEveryMs(this.idleMs));
      this.sweeper.unref();
    }
    this.subagents = new Subagents({
      ...deps, limits: () => this.limits(), stopping: () => this.closing, parentSystem: (id) => this.runtimes.get(id)?.systemPrompt,
    });
    this.runtimeDeps = { ...deps, subagents: this.subagents, limits: () => this.limits() };
  }

  /** Subscriber of committed events (src/app/subscribers.ts): sessions created here load without a journal read. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    for (const e of events) {
      if (known(e).type !== 'session.created') continue;
      this.fresh.set(e.stream, e.seq);
      if (this.fresh.size > FRESH_MAX) this.fresh.delete(this.fresh.keys().next().value!);
    }
  };

  /** Whether the session was just created here and its stream holds nothing else (no journal read needed). */
  private isFresh(id: string): boolean {
    const createdAt = this.fresh.get(id);
    this.fresh.delete(id);
    return createdAt !== undefined && this.deps.journal.headSeq(id) === createdAt;
  }

  get(sessionId: string): SessionRuntime | undefined {
    return this.runtimes.get(sessionId);
  }

  /** Whether the session's main runtime is loaded here or loading (its lease is then in use). */
  holds(sessionId: string): boolean {
    return this.runtimes.has(sessionId) || this.loading.has(sessionId);
  }

  /** The runtime of one agent of the session: `main`, or a `:btw` agent (rebuilt from the journal after a restart). */
  async agentRuntime(session: SessionRecord, agentId: string): Promise<SessionRuntime> {
    if (agentId === MAIN_AGENT) return this.runtime(session);
    this.lastUsed.set(session.id, Date.now());
    const key = `${session.id}/${agentId}`;
    const hit = this.agents.get(key);
    if (hit) return hit;
    await this.runtime(session);
    const again = this.agents.get(key);
    if (again) return again;
    const rt = await rebuildBtwAgent(this.runtimeDeps, session, agentId);
    if (!rt) throw validationError([{ field: 'agent_id', message: `unknown agent: ${agentId}` }]);
    this.agents.set(key, rt);
    return rt;
  }

  /** `:btw`: forks the main agent's history into a new read-only agent and returns its id. */
  async forkBtw(session: SessionRecord): Promise<string> {
    const main = await this.runtime(session);
    const rt = await createBtwAgent(this.runtimeDeps, session, { history: main.history, ...(main.systemPrompt !== undefined ? { system: main.systemPrompt } : {}), identity: this.identity });
    this.agents.set(`${session.id}/${rt.agentId}`, rt);
    return rt.agentId;
  }

  private readonly agents = new Map<string, SessionRuntime>();

  /**
   * Core/Part B "resumes a cold session": loads the runtime of a session this process holds (a
   * session held by another instance is left to it). Fails like any resume (rule 7: 40001 on an
   * unusable [secondary_model] pool).
   */
  async resume(session: SessionRecord & { foreign?: unknown }): Promise<void> {
    if (session.foreign) return;
    // Another node runs it (docs/scale-out.md "Leases"): the read is served from this node's read models as is.
    await this.runtime(session).catch((err: unknown) => {
      if (!isHeldElsewhere(err)) throw err;
    });
  }

  /** The session's runtime, loading it from the journal the first time. */
  runtime(session: SessionRecord): Promise<SessionRuntime> {
    this.lastUsed.set(session.id, Date.now());
    const hit = this.runtimes.get(session.id);
    if (hit) return Promise.resolve(hit);
    let load = this.loading.get(session.id);
    if (!load) {
      load = this.load(session).finally(() => this.loading.delete(session.id));
      this.loading.set(session.id, load);
    }
    return load;
  }

  private async load(session: SessionRecord): Promise<SessionRuntime> {
    // Part B secondary_model rule 7: resuming a session fails on an unusable subagent pool.
    assertPoolUsable(this.deps.config.current());
    await this.lease(session.id);
    try {
      return await this.loadLeased(session);
    } catch (err) {
      await this.releaseLease(session.id);
      throw err;
    }
  }

  /**
   * This node's lease on the session (docs/scale-out.md "Leases"): refused while another live node runs it (a command
   * the forwarding did not reach the owner with). Taken from another node, its last writes are followed first.
   */
  private async lease(sessionId: string): Promise<void> {
    const lease = await this.deps.leases.acquire(sessionId);
    if (!lease.held) {
      throw new ApiError(Codes.SESSION_BUSY, 'session is running on another svc-code node; send its commands there', {
        details: { reason: 'held_by_other_node', session_id: sessionId, node_id: lease.owner },
      });
    }
    if (lease.previous) await this.deps.journal.catchUp();
  }

  private async loadLeased(session: SessionRecord): Promise<SessionRuntime> {
    const fresh = this.isFresh(session.id);
    const { messages, events } = fresh ? { messages: [], events: [] } : await loadMessages(this.deps.journal, session.id);
    const system = this.mainSystem(session, events);
    const orphans = settleOrphans(events, this.deps.clock.now().toISOString(), session.id, this.deps.ids);
    if (orphans.length) await this.deps.journal.append(orphans.map((e) => ({ stream: session.id, ...e })));
    for (const e of orphans) if (e.type === 'message.created' && e.payload.agent_id === MAIN_AGENT) messages.push(e.payload.message);
    const rt = new SessionRuntime(this.runtimeDeps, session.id, session.workspace_id, messages, { id: MAIN_AGENT, system });
    for (const e of events) {
      if (known(e).type === 'prompt.accepted' && (e.payload.agent_id ?? MAIN_AGENT) === MAIN_AGENT) rt.prompts.set(e.payload.prompt_id, finishedPrompt(e.payload as PromptAcceptedPayload));
      if (known(e).type === 'prompt.aborted') {
        const p = rt.prompts.get(e.payload.prompt_id);
        if (p) p.status = 'aborted';
      }
    }
    this.runtimes.set(session.id, rt);
    this.deps.lifecycle?.loaded(session);
    const prev = this.deps.live.get(session.id);
    this.deps.live.set(session.id, prev ?? { busy: false, main_turn_active: false, pending_interaction: 'none', model: null });
    // Not awaited: the runtime is usable while SessionStart hooks run.
    if (this.deps.hooks) {
      void this.deps.hooks.run('SessionStart', { sessionId: session.id, agentId: MAIN_AGENT, cwd: session.cwd }, { source: fresh ? 'startup' : 'resume' })
        .catch((err) => this.deps.log.warn({ err: (err as Error).message, session_id: session.id }, 'SessionStart hooks failed'));
    }
    return rt;
  }

  /**
   * The main agent's system prompt: the one recorded when the session first ran (a resumed session
   * keeps it, Part B identity), or a new one built with the identity resolved at startup.
   */
  private mainSystem(session: SessionRecord, events: Array<{ type: string; payload: any }>) {
    const recorded = events.find((e) => e.type === SYSTEM_PROMPT_EVENT && e.payload?.agent_id === MAIN_AGENT)?.payload as SystemPromptRecord | undefined;
    if (recorded) return { text: recorded.text, recorded: true, identity: recorded.identity };
    return { text: buildSystemPrompt(this.identity, session.cwd, this.deps.clock.now()), recorded: false, identity: this.identity };
  }


  limits(): LoopLimits {
    const c = this.deps.config.current();
    return {
      maxSteps: c.loop_control.max_steps_per_turn ?? 0,
      maxAttempts: Math.max(1, c.loop_control.max_attempts_per_step),
      retryBaseMs: this.retryBase,
      idleTimeoutMs: this.idleTimeout,
      strategy: c.token_counting.strategy,
    };
  }

  /**
   * Ends the session's open turn as interrupted (calls answered, queued prompts aborted); false when none is open.
   * A stopped run's turn, at this daemon's restart or a dead node's takeover (src/nodes/settlement.ts).
   */
  settleInterrupted(s: SessionRecord, cause: InterruptCause): Promise<boolean> {
    return settleInterrupted(this.deps, s, cause);
  }

  /**
   * Unloads the runtimes (main and `:btw` agents) of sessions quiet for `SVC_CODE_RUNTIME_IDLE_MS`,
   * so a long-running daemon does not keep every session it ever served in memory; the session
   * turns cold and its next use reloads it from the journal. Returns the unloaded session ids.
   */
  async unloadIdle(now = Date.now()): Promise<string[]> {
    const unloaded: string[] = [];
    for (const [id, main] of this.runtimes) {
      const agentKeys = [...this.agents.keys()].filter((k) => k.startsWith(`${id}/`));
      const all = [main, ...agentKeys.map((k) => this.agents.get(k)!)];
      if (!quiet(all, this.deps.live, id)) {
        this.lastUsed.set(id, now);
        continue;
      }
      if (now - (this.lastUsed.get(id) ?? now) < this.idleMs) continue;
      this.runtimes.delete(id);
      for (const k of agentKeys) this.agents.delete(k);
      this.lastUsed.delete(id);
      this.deps.live.delete(id);
      unloaded.push(id);
      await Promise.all(all.map((r) => r.close()));
      await this.deps.lifecycle?.unloaded(id);
      await this.releaseLease(id);
    }
    return unloaded;
  }

  /** Unloads one session's runtimes (main and `:btw` agents) now, whatever their idle time (a deleted session). */
  async unload(id: string): Promise<void> {
    const main = this.runtimes.get(id);
    const agentKeys = [...this.agents.keys()].filter((k) => k.startsWith(`${id}/`));
    const all = [...(main ? [main] : []), ...agentKeys.map((k) => this.agents.get(k)!)];
    this.runtimes.delete(id);
    for (const k of agentKeys) this.agents.delete(k);
    this.lastUsed.delete(id);
    this.deps.live.forget(id);
    await Promise.all(all.map((r) => r.close()));
    if (main) await this.deps.lifecycle?.unloaded(id);
    await this.releaseLease(id);
  }

  /** The runtime is gone here: another node may load the session now (a failure leaves it to expire). */
  private async releaseLease(id: string): Promise<void> {
    await this.deps.leases.release(id).catch((err: unknown) => this.deps.log.warn({ err, session_id: id }, 'releasing a session lease failed (it expires by itself)'));
  }

  /** The daemon is stopping: turns still running leave their end to the next start. */
  get stopping(): boolean {
    return this.closing;
  }

  private closing = false;

  async closeAll(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.loading.values()].map((p) => p.catch(() => undefined)));
    await Promise.all([...this.runtimes.values(), ...this.agents.values()].map((r) => r.close()));
    this.runtimes.clear();
    this.agents.clear();
  }
}



/** The refusal of a runtime load while another node holds the session's lease. */
const isHeldElsewhere = (err: unknown): boolean => err instanceof ApiError && (err.details as { reason?: string } | undefined)?.reason === 'held_by_other_node';
