import * as v from 'valibot';
import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { SubagentLauncher } from '../agents/launcher.ts';
import type { VolatileBus } from '../events/volatile-bus.ts';
import type { PreparedCall, ToolCall, ToolExecutor, ToolOutcome, ToolScope } from '../engine/tools.ts';
import type { ToolSpec } from '../providers/wire/types.ts';
import { confine, confiner } from '../fs/confine.ts';
import { ApiError } from '../../protocol/errors.ts';
import { toolAllowed, toolMatches, unknownEntries } from './filter.ts';
import { gateOf } from './gate.ts';
import { BUILTIN_TOOLS, findTool, toolSpec } from './registry.ts';
import { truncateHead } from './truncate.ts';
import { ToolError, type ToolContext, type ToolDef, type ToolDeps } from './types.ts';
import type { NewEvent, NewStreamEvent } from '../../protocol/events/registry.ts';
import type { ExternalTool, ExternalTools } from './external.ts';
import { preToolVerdict, type HookRunner } from '../hooks/runner.ts';

/** What the model reads for a call whose turn was stopped while its hooks or permission check ran. */
const ABORTED_BEFORE_RUN = '[aborted] The turn was stopped before this tool call ran: it was not run and changed nothing.';

/** Budget of `content` in the journaled tool.result (the model gets the full result). */
const RESULT_EVENT_BUDGET = 100_000;

/** What the executor uses itself (the session, volatile progress) besides what it hands the tools. */
export interface ToolExecutorDeps extends ToolDeps {
  sessions: SessionIndex;
  bus: VolatileBus;
  /** MCP servers' tools (`mcp__<server>__<tool>`), run through the same lists and gate. */
  external?: ExternalTools;
  /** PreToolUse / PostToolUse hooks (docs/hooks.md). */
  hooks?: Pick<HookRunner, 'run'>;
  /** `svc-code replay --tools record`: calls answered from the recorded session instead of run. */
  replay?: ToolReplay;
}

/**
 * Recorded tool outcomes (`svc-code replay --tools record`, docs/replay.md). `answer` is asked once a call
 * passed every check (availability, validation, hooks, permission gate); `events` are the ones the tool
 * itself journaled (such as `file.changed`), appended before the result. Undefined: the tool runs.
 */
export interface ToolReplay {
  /** Whether the record holds a result for this call (an MCP tool the replay home lacks is then not refused as unknown). */
  holds(call: ToolCall): boolean;
  answer(sessionId: string, call: ToolCall, at: { agentId: string; turnId?: string }): { outcome: ToolOutcome; events: NewEvent[] } | undefined;
}

/** Runs built-in tools for the engine: filtering, the permission gate, validation, events. */
export class BuiltinToolExecutor implements ToolExecutor {
  private warned = new Set<string>();

  constructor(private readonly deps: ToolExecutorDeps) {}

  /**
   * Descriptors for `GET /api/v1/tools`, with whether each is active under `[tools]`, the session and the config;
   * `inactiveReason` says why a tool that needs an unconfigured service is not.
   */
  available(disabled: readonly string[] = [], session?: SessionRecord): Array<{ tool: ToolDef; active: boolean; inactiveReason?: string }> {
    const lists = this.lists();
    const config = this.deps.config.current();
    const enabled = (tool: ToolDef) => !tool.enabledFor || (session !== undefined && tool.enabledFor(session));
    return BUILTIN_TOOLS.map((tool) => {
      const reason = tool.unavailable?.(config);
      return { tool, active: !reason && toolAllowed(tool.name, lists, disabled) && enabled(tool), ...(reason ? { inactiveReason: reason } : {}) };
    });
  }

  /** External (MCP) tools of a live session, with whether each is active under `[tools]` and `disabled`. */
  externalAvailable(sessionId: string, disabled: readonly string[] = []): Array<{ tool: ExternalTool; active: boolean }> {
    const lists = this.lists();
    return (this.deps.external?.list(sessionId) ?? []).map((tool) => ({ tool, active: toolAllowed(tool.name, lists, disabled) }));
  }

  /** Waits for the session's external tools (MCP servers starting with its runtime) before a model request. */
  async ready(sessionId: string): Promise<void> {
    await this.deps.external?.ready(sessionId);
  }

  specs(sessionId: string, disabled: readonly string[], scope?: ToolScope): ToolSpec[] {
    const config = this.deps.config.current();
    const session = this.deps.sessions.get(sessionId);
    const builtins = this.available(disabled, session)
      .filter((x) => x.active && inScope(x.tool.name, scope))
      .map((x) => (session && x.tool.specFor ? x.tool.specFor(toolSpec(x.tool, config), this.deps, session) : toolSpec(x.tool, config)));
    const external = this.externalAvailable(sessionId, disabled).filter((x) => x.active && inScope(x.tool.name, scope)).map((x) => x.tool.spec);
    return external.length ? [...builtins, ...external] : builtins;
  }

  async run(sessionId: string, call: ToolCall, signal: AbortSignal, scope: ToolScope | undefined, subagents: SubagentLauncher): Promise<ToolOutcome> {
    return (await this.prepare(sessionId, call, signal, scope, subagents)).finish();
  }

  /**
   * Journals `tool.call.started` and runs the call's checks (availability, validation, PreToolUse hooks, the
   * permission gate, which may ask the user); `finish` runs the tool itself, the PostToolUse hooks and journals
   * `tool.result`. The engine prepares a group of Agent calls one by one, then finishes them concurrently.
   */
  async prepare(sessionId: string, call: ToolCall, signal: AbortSignal, scope: ToolScope | undefined, subagents: SubagentLauncher): Promise<PreparedCall> {
    const started = Date.now();
    const session = this.deps.sessions.get(sessionId);
    const agentId = scope?.agentId ?? 'main';
    const turnId = scope?.turnId ?? session?.active_turn?.turn_id;
    const at = { agentId, ...(turnId ? { turnId } : {}) };
    await this.append(sessionId, {
      type: 'tool.call.started',
      payload: { agent_id: agentId, ...(turnId ? { turn_id: turnId } : {}), tool_call_id: call.id, tool_name: call.name, input: call.input },
    });
    const site = { refused: false };
    const failed = (err: unknown): ToolOutcome => ({ content: errorText(err), is_error: true });
    const checked = await this.execute(sessionId, call, signal, at, scope, subagents, site).catch(failed);
    return {
      finish: async () => {
        let out = typeof checked === 'function' ? await this.invoke(checked, signal, site).catch(failed) : checked;
        if (!site.refused && session) out = await this.postToolHooks(session, call, at, out, signal);
        await this.append(sessionId, {
          type: 'tool.result',
          payload: {
            agent_id: agentId, ...(turnId ? { turn_id: turnId } : {}), tool_call_id: call.id, tool_name: call.name, is_error: out.is_error,
            content: truncateHead(out.content, RESULT_EVENT_BUDGET), duration_ms: Date.now() - started,
          },
        });
        return out;
      },
    };
  }

  /** Runs a call that passed its checks, unless the turn was stopped meanwhile (a prepared call may wait for its group). */
  private async invoke(go: () => Promise<ToolOutcome>, signal: AbortSignal, site: { refused: boolean }): Promise<ToolOutcome> {
    if (signal.aborted) {
      site.refused = true;
      return { content: ABORTED_BEFORE_RUN, is_error: true };
    }
    return go();
  }

  /** The checks of a call: a refusal (or an error result), or the thunk that runs it. */
  private async execute(sessionId: string, call: ToolCall, signal: AbortSignal, at: CallSite, scope: ToolScope | undefined, subagents: SubagentLauncher, site: { refused: boolean }): Promise<Checked> {
    const tool = findTool(call.name);
    const session = this.deps.sessions.get(sessionId);
    if (!tool && session && this.deps.external?.has(sessionId, call.name)) return this.executeExternal(this.deps.external, session, call, signal, at, scope, site);
    site.refused = true;
    if (!tool || !session || !inScope(call.name, scope) || (tool.enabledFor && !tool.enabledFor(session))) return { content: `tool not available: ${call.name}`, is_error: true };
    // A recorded call is answered from the record (replay) even where the service it used is not configured.
    const unavailable = tool.unavailable?.(this.deps.config.current());
    if (unavailable && !this.deps.replay?.holds(call)) return { content: `tool not available: ${call.name}: ${unavailable}`, is_error: true };
    // Part B "tools": enforced again before execution (the config may have changed since the request).
    if (!toolAllowed(tool.name, this.lists())) return { content: `tool disabled by configuration: ${call.name}`, is_error: true };
    if (scope?.disabled?.includes(tool.name)) return { content: `tool disabled for this session: ${call.name}`, is_error: true };
    // Validated first so the user is never asked to approve a call that cannot run.
    const parsed = v.safeParse(tool.schema, call.input ?? {});
    if (!parsed.success) return { content: `invalid input for ${tool.name}: ${describeIssues(parsed.issues)}`, is_error: true };
    const hook = await this.preToolHooks(session, call, at, signal);
    if (hook?.decision === 'deny') return { content: denied(call.name, hook.reason), is_error: true };
    if (signal.aborted) return { content: ABORTED_BEFORE_RUN, is_error: true };
    const gate = gateOf(this.deps);
    if (gate) {
      const d = await gate.check(sessionId, call, { agentId: at.agentId, readOnly: tool.readOnly, ...(at.turnId ? { turnId: at.turnId } : {}), ...hookForce(hook) }, signal);
      if (d.decision === 'deny') return { content: d.message || `permission denied: ${call.name}`, is_error: true };
    }
    // A Stop during the permission check: the call does not start (the gate also never allows an aborted call).
    if (signal.aborted) return { content: ABORTED_BEFORE_RUN, is_error: true };
    site.refused = false;
    return async () => {
      const recorded = await this.recorded(sessionId, call, at);
      if (recorded) return recorded;
      const ctx = this.context(session, call, signal, at, subagents);
      const out = await tool.run(parsed.output, ctx);
      return typeof out === 'string' ? { content: out, is_error: false } : { content: out.text, is_error: false, images: out.images };
    };
  }

  /** An MCP tool: the same checks as a built-in (name-only permission rules, never read-only), then the server. */
  private async executeExternal(ext: ExternalTools, session: SessionRecord, call: ToolCall, signal: AbortSignal, at: CallSite, scope: ToolScope | undefined, site: { refused: boolean }): Promise<Checked> {
    site.refused = true;
    // A recorded call of a server the replay home does not have is answered from the record (after the same checks).
    const offered = ext.list(session.id).find((t) => t.name === call.name);
    const known = offered !== undefined || this.deps.replay?.holds(call) === true;
    if (!inScope(call.name, scope) || !known) return { content: `tool not available: ${call.name}`, is_error: true };
    if (!toolAllowed(call.name, this.lists())) return { content: `tool disabled by configuration: ${call.name}`, is_error: true };
    if (scope?.disabled?.includes(call.name)) return { content: `tool disabled for this session: ${call.name}`, is_error: true };
    const input = call.input ?? {};
    if (typeof input !== 'object' || Array.isArray(input)) return { content: `invalid input for ${call.name}: must be an object`, is_error: true };
    const hook = await this.preToolHooks(session, call, at, signal);
    if (hook?.decision === 'deny') return { content: denied(call.name, hook.reason), is_error: true };
    if (signal.aborted) return { content: ABORTED_BEFORE_RUN, is_error: true };
    const gate = gateOf(this.deps);
    if (gate) {
      const d = await gate.check(session.id, call, { agentId: at.agentId, readOnly: offered?.readOnly === true, ...(at.turnId ? { turnId: at.turnId } : {}), ...hookForce(hook) }, signal);
      if (d.decision === 'deny') return { content: d.message || `permission denied: ${call.name}`, is_error: true };
    }
    if (signal.aborted) return { content: ABORTED_BEFORE_RUN, is_error: true };
    site.refused = false;
    const deps = this.deps;
    return async () => {
      const recorded = await this.recorded(session.id, call, at);
      if (recorded) return recorded;
      return ext.call(session.id, call.name, input, {
        signal, agentId: at.agentId, ...(at.turnId ? { turnId: at.turnId } : {}), toolCallId: call.id,
        progress: (payload) => deps.bus.publish(session.id, 'tool.progress', { agent_id: at.agentId, tool_call_id: call.id, tool_name: call.name, ...payload }),
      });
    };
  }

  /** PreToolUse hooks: deny (the reason reaches the model), ask (approval even where none would be asked) or allow (no approval asked). */
  private async preToolHooks(session: SessionRecord, call: ToolCall, at: CallSite, signal: AbortSignal) {
    if (!this.deps.hooks) return undefined;
    const runs = await this.deps.hooks.run('PreToolUse', { sessionId: session.id, cwd: session.cwd, toolName: call.name, toolCallId: call.id, ...at }, { tool_name: call.name, tool_input: call.input ?? {}, tool_call_id: call.id }, signal);
    return preToolVerdict(runs);
  }

  /** PostToolUse hooks: a `block` decision's reason is added to the result the model reads. */
  private async postToolHooks(session: SessionRecord, call: ToolCall, at: CallSite, out: ToolOutcome, signal: AbortSignal): Promise<ToolOutcome> {
    if (!this.deps.hooks) return out;
    const runs = await this.deps.hooks.run('PostToolUse', { sessionId: session.id, cwd: session.cwd, toolName: call.name, toolCallId: call.id, ...at }, {
      tool_name: call.name, tool_input: call.input ?? {}, tool_call_id: call.id, tool_response: { content: truncateHead(out.content, RESULT_EVENT_BUDGET), is_error: out.is_error },
    }, signal);
    const notes = runs.filter((r) => r.decision === 'block' && r.reason).map((r) => `[PostToolUse hook] ${r.reason}`);
    return notes.length ? { ...out, content: `${out.content}\n\n${notes.join('\n')}` } : out;
  }

  private context(session: SessionRecord, call: ToolCall, signal: AbortSignal, at: CallSite, subagents: SubagentLauncher): ToolContext {
    const deps = this.deps;
    return {
      deps, subagents, session, signal, config: deps.config.current(), toolCallId: call.id, ...at,
      confine: (given) => confine(deps, session, given),
      confiner: () => confiner(deps, session),
      progress: (payload) => deps.bus.publish(session.id, 'tool.progress', { agent_id: at.agentId, tool_call_id: call.id, tool_name: call.name, ...payload }),
    };
  }

  /** The recorded outcome of a call under `replay --tools record`, its own events journaled first. */
  private async recorded(sessionId: string, call: ToolCall, at: CallSite): Promise<ToolOutcome | undefined> {
    const hit = this.deps.replay?.answer(sessionId, call, at);
    if (!hit) return undefined;
    if (hit.events.length) await this.deps.journal.append(hit.events.map((e) => ({ stream: sessionId, ...e }) as NewStreamEvent));
    return hit.outcome;
  }

  private lists() {
    const lists = this.deps.config.current().tools;
    for (const w of unknownEntries(lists, BUILTIN_TOOLS.map((t) => t.name))) {
      if (this.warned.has(w)) continue;
      this.warned.add(w);
      this.deps.log.warn(w);
    }
    return lists;
  }

  private append(sessionId: string, event: NewEvent): Promise<unknown> {
    return this.deps.journal.append([{ stream: sessionId, ...event }]);
  }
}

interface CallSite { agentId: string; turnId?: string }

/** A call's checks answered: its result already (refused), or how to run it. */
type Checked = ToolOutcome | (() => Promise<ToolOutcome>);

function inScope(name: string, scope?: ToolScope): boolean {
  // A custom agent's `tools` may hold MCP globs (`mcp__server__*`), matched as [tools] matches them.
  if (scope?.only && !scope.only.some((e) => toolMatches(e, name))) return false;
  return !scope?.exclude?.includes(name);
}

function denied(name: string, reason?: string): string {
  return `Tool call ${name} denied by a PreToolUse hook${reason ? `: ${reason}` : '.'}`;
}

/** What a hook's allow or ask tells the permission gate. */
function hookForce(v: { decision: 'allow' | 'deny' | 'ask' } | undefined): { hook?: 'allow' | 'ask' } {
  return v && v.decision !== 'deny' ? { hook: v.decision } : {};
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.map((i) => `${v.getDotPath(i) ?? '(input)'}: ${i.message}`).join('; ');
}

function errorText(err: unknown): string {
  if (err instanceof ToolError) return err.message;
  if (err instanceof ApiError) return err.message;
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : String((err as Error)?.message ?? err);
}
