import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import type { Logger } from '../lib/logger.ts';
import type { ConfigService } from '../config/service.ts';
import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { setPendingInteraction, statusChangedEvent } from '../sessions/interaction.ts';
import type { LiveSessions } from '../sessions/live.ts';
import { decide } from './policy.ts';
import { byScope, configRules, subjectOf } from './rules.ts';
import { localConfigPath, readLocalConfig } from '../workspaces/local-config.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import type { CheckContext, PermissionDecision, PermissionGate, PermissionMode, PermissionRule, ReviewRequest, ToolCallRef } from './types.ts';
import { logFailure } from '../lib/logger.ts';
import { agentSettings } from '../sessions/agent-settings.ts';
import type { ApprovalDecision, ApprovalItem, ApprovalResolvedPayload, PermissionRequestedPayload, PermissionResolvedPayload } from '../../protocol/events/approvals.ts';
import { callDisplay } from '../../protocol/display.ts';
import { known } from '../../protocol/events/known.ts';

const APPROVAL_LIFETIME_MS = 24 * 60 * 60 * 1000;
const ABORTED: PermissionDecision = { decision: 'deny', message: 'Permission request cancelled: the turn was aborted.' };
const DISPLAY_MAX = 2_000;

interface Pending {
  item: ApprovalItem;
  subject: string | undefined;
  settle: (r: ApprovalResolvedPayload) => void;
  timer?: NodeJS.Timeout;
  cleanup: () => void;
}

export interface PermissionDeps {
  journal: EventJournal;
  sessions: SessionIndex;
  live: LiveSessions;
  config: ConfigService;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /** The session's workspace: its project rules (`<root>/.svc-code/local.toml`) count while it is trusted. */
  workspaces: Pick<WorkspaceRegistry, 'get'>;
}

export interface ResolveBody {
  decision: ApprovalDecision;
  scope?: 'session';
  feedback?: string;
  selected_label?: string;
}

/**
 * Permission gate and approvals. Pending approvals live in memory (the waiting
 * tool call holds a promise) and are journaled on the session stream, so the
 * session index knows which are open; a restart resolves those as cancelled.
 */
export class PermissionService implements PermissionGate {
  private pending = new Map<string, Pending>();

  constructor(private readonly deps: PermissionDeps) {}

  /** The session's mode: agent_config.permission_mode (profile, prompt overrides), else the config default. */
  modeOf(sessionId: string): PermissionMode {
    return agentSettings(this.deps.config, this.deps.sessions.get(sessionId)?.agent_config).permission_mode;
  }

  /** Plan mode: agent_config.plan_mode (profile, EnterPlanMode / ExitPlanMode), else the config default. */
  planModeOf(sessionId: string): boolean {
    return agentSettings(this.deps.config, this.deps.sessions.get(sessionId)?.agent_config).plan_mode;
  }

  /** Never allows a call of an aborted turn: the abort is checked before any allow, also after an approval. */
  async check(sessionId: string, call: ToolCallRef, ctx: CheckContext, signal?: AbortSignal): Promise<PermissionDecision> {
    if (signal?.aborted) return ABORTED;
    const s = this.deps.sessions.get(sessionId);
    if (!s) return { decision: 'deny', message: `unknown session ${sessionId}` };
    const cfg = this.deps.config.current().permission;
    const subject = subjectOf(call.name, call.input, s.cwd, ctx.subject);
    const rules = byScope([...configRules(cfg.rules ?? []), ...(await this.projectRules(s.workspace_id))]);
    const outcome = decide({
      mode: this.modeOf(sessionId), planMode: this.planModeOf(sessionId), rules, remembered: s.session_rules ?? [],
      guard: cfg.dangerous_command_guard !== false, name: call.name, subject, readOnly: ctx.readOnly,
      outsideWorkspace: subject !== undefined && subject.startsWith('/'),
    });
    if (outcome.decision === 'deny') return { decision: 'deny', message: `Permission denied: ${outcome.why}.` };
    if (outcome.decision === 'allow' && ctx.hook !== 'ask') return { decision: 'allow' };
    if (outcome.decision === 'ask' && ctx.hook === 'allow') return { decision: 'allow' };
    const asked = await this.ask(sessionId, call, ctx, subject, outcome.decision === 'allow' ? 'a PreToolUse hook asks for approval' : outcome.why, signal);
    // Approved just as the user pressed Stop: the Stop wins.
    return asked.decision === 'allow' && signal?.aborted ? ABORTED : asked;
  }

  /**
   * `[[permission.rules]]` of the workspace's `<root>/.svc-code/local.toml`: `project` rules, living with the
   * workspace and acting in its sessions only. Gated by workspace trust like the file's other entries; an
   * unreadable file contributes nothing (logged).
   */
  private async projectRules(workspaceId: string): Promise<PermissionRule[]> {
    const ws = this.deps.workspaces.get(workspaceId);
    if (!ws?.trusted) return [];
    const file = localConfigPath(ws.root);
    try {
      const raw = (await readLocalConfig(file)).permission as { rules?: unknown } | undefined;
      return Array.isArray(raw?.rules) ? configRules(raw.rules, 'project') : [];
    } catch (err) {
      this.deps.log.warn({ workspace_id: ws.id, config_path: file, err: (err as Error).message }, 'ignoring the project rules of an unreadable project local config');
      return [];
    }
  }

  private ask(sessionId: string, call: ToolCallRef, ctx: CheckContext, subject: string | undefined, why: string, signal?: AbortSignal): Promise<PermissionDecision> {
    const item = this.newItem(sessionId, call, ctx, { action: actionOf(call.name, why), display: displayOf(call, subject) });
    return this.open(item, subject, signal).then(outcomeOf);
  }

  /**
   * A review the user answers with one of `req.options` (ExitPlanMode's plan review): an
   * approval like any other (pending_interaction, 24 h expiry, abort cancels), whose full
   * resolution (decision, selected_label, feedback, reason) is returned instead of allow/deny.
   */
  review(sessionId: string, call: ToolCallRef, ctx: CheckContext, req: ReviewRequest, signal?: AbortSignal): Promise<ApprovalResolvedPayload> {
    return this.open(this.newItem(sessionId, call, ctx, req), undefined, signal);
  }

  private newItem(sessionId: string, call: ToolCallRef, ctx: CheckContext, req: ReviewRequest): ApprovalItem {
    const now = this.deps.clock.now();
    // The block clients render (spec/clients.md B4, F): a plan review's plan and options, else the call's own block.
    const display = req.plan !== undefined
      ? { kind: 'plan_review', plan: req.plan, ...(req.options ? { options: req.options } : {}) }
      : callDisplay(call.name, call.input, { cwd: this.deps.sessions.get(sessionId)?.cwd });
    return {
      approval_id: this.deps.ids.next('appr'), session_id: sessionId, agent_id: ctx.agentId, ...(ctx.turnId ? { turn_id: ctx.turnId } : {}),
      tool_call_id: call.id, tool_name: call.name, action: req.action, tool_input_display: clip(req.display),
      created_at: now.toISOString(), expires_at: new Date(now.getTime() + APPROVAL_LIFETIME_MS).toISOString(),
      ...(req.options ? { options: req.options } : {}), ...(req.plan !== undefined ? { plan: req.plan } : {}),
      display, tool_input: call.input ?? {},
    };
  }

  /** Journals the request and waits for its resolution (answer, expiry or abort). */
  private async open(item: ApprovalItem, subject: string | undefined, signal?: AbortSignal): Promise<ApprovalResolvedPayload> {
    const sessionId = item.session_id;
    if (signal?.aborted) {
      const { approval_id, agent_id, tool_call_id } = item;
      return { approval_id, agent_id, tool_call_id, decision: 'cancelled', reason: 'turn_aborted', resolved_at: this.deps.clock.now().toISOString() };
    }
    let settle!: (r: ApprovalResolvedPayload) => void;
    const decided = new Promise<ApprovalResolvedPayload>((r) => (settle = r));
    const onAbort = () => void this.finish(item.approval_id, 'cancelled', { reason: 'turn_aborted' }).catch(logFailure(this.deps.log, 'cancelling an approval of an aborted turn', { approval_id: item.approval_id }));
    const p: Pending = { item, subject, settle, cleanup: () => signal?.removeEventListener('abort', onAbort) };
    this.pending.set(item.approval_id, p);
    setPendingInteraction(this.deps, sessionId, 'approval', this.pendingItems(sessionId).length > 0);
    try {
      await this.deps.journal.append([
        { stream: sessionId, type: 'event.approval.requested', payload: item },
        { stream: sessionId, type: 'permission.approval.requested', payload: permissionOf(item) },
        statusChangedEvent(this.deps, sessionId),
      ]);
    } catch (err) {
      // Not on disk: no client may see or answer it (it was held only so an answer racing the write finds it).
      this.pending.delete(item.approval_id);
      p.cleanup();
      setPendingInteraction(this.deps, sessionId, 'approval', this.pendingItems(sessionId).length > 0);
      throw err;
    }
    if (!this.pending.has(item.approval_id)) return decided; // answered while the request was being written
    signal?.addEventListener('abort', onAbort, { once: true });
    // Expiry without a client: the waiting call is denied as timed out (a POST after expiry answers 41001).
    p.timer = setTimeout(() => void this.finish(item.approval_id, 'cancelled', { reason: 'timed_out' }).catch(logFailure(this.deps.log, 'expiring an approval', { approval_id: item.approval_id })), APPROVAL_LIFETIME_MS);
    p.timer.unref();
    if (signal?.aborted) onAbort();
    return decided;
  }

  /** Pending approvals of a session, oldest first (expired ones resolve as timed out first). */
  async list(sessionId: string): Promise<ApprovalItem[]> {
    const now = this.deps.clock.now().getTime();
    for (const p of [...this.pending.values()]) {
      if (p.item.session_id === sessionId && Date.parse(p.item.expires_at) <= now) await this.finish(p.item.approval_id, 'cancelled', { reason: 'timed_out' });
    }
    return this.pendingItems(sessionId);
  }

  /** Synchronous view (snapshot): pending items of a session. */
  pendingItems(sessionId: string): ApprovalItem[] {
    return [...this.pending.values()].filter((p) => p.item.session_id === sessionId).map((p) => p.item);
  }

  /** POST /approvals/{id}; returns resolved_at, or why it could not (the route maps it to a code). */
  async resolve(sessionId: string, approvalId: string, body: ResolveBody): Promise<{ resolved_at: string } | 'not_found' | 'already_resolved' | 'timed_out'> {
    const p = this.pending.get(approvalId);
    if (!p || p.item.session_id !== sessionId) return this.settledAs(sessionId, approvalId);
    if (Date.parse(p.item.expires_at) <= this.deps.clock.now().getTime()) {
      await this.finish(approvalId, 'cancelled', { reason: 'timed_out' });
      return 'timed_out';
    }
    const extra: Partial<ApprovalResolvedPayload> = {};
    if (body.scope) extra.scope = body.scope;
    if (body.feedback !== undefined) extra.feedback = body.feedback;
    if (body.selected_label !== undefined) extra.selected_label = body.selected_label;
    if (body.decision === 'approved' && body.scope === 'session') extra.remember = { tool_name: p.item.tool_name, ...(p.subject !== undefined ? { subject: p.subject } : {}) };
    return { resolved_at: await this.finish(approvalId, body.decision, extra) };
  }

  /** The session's approvals no tool call waits on any more (a restart, a takeover) journaled cancelled; how many. */
  async cancelLeftPending(s: SessionRecord): Promise<number> {
    if (!s.pending_approvals?.length) return 0;
    const at = this.deps.clock.now().toISOString();
    await this.deps.journal.append(s.pending_approvals.flatMap((a) => [
      {
        stream: s.id, type: 'event.approval.resolved',
        payload: { approval_id: a.approval_id, agent_id: a.agent_id, tool_call_id: a.tool_call_id, decision: 'cancelled', reason: 'daemon_restarted', resolved_at: at } satisfies ApprovalResolvedPayload,
      } as const,
      {
        stream: s.id, type: 'permission.approval.resolved',
        payload: { approval_id: a.approval_id, agent_id: a.agent_id, tool_call_id: a.tool_call_id, decision: 'cancelled' } satisfies PermissionResolvedPayload,
      } as const,
    ]));
    return s.pending_approvals.length;
  }

  /** Journals the resolution, updates pending_interaction and releases the waiting tool call. */
  private async finish(approvalId: string, decision: ApprovalDecision, extra: Partial<ApprovalResolvedPayload>): Promise<string> {
    const p = this.pending.get(approvalId);
    if (!p) return this.deps.clock.now().toISOString();
    this.pending.delete(approvalId);
    clearTimeout(p.timer);
    p.cleanup();
    const sessionId = p.item.session_id;
    const resolved_at = this.deps.clock.now().toISOString();
    const payload: ApprovalResolvedPayload = { approval_id: approvalId, agent_id: p.item.agent_id, tool_call_id: p.item.tool_call_id, decision, ...extra, resolved_at };
    const last = this.pendingItems(sessionId).length === 0;
    if (last) setPendingInteraction(this.deps, sessionId, 'approval', this.pendingItems(sessionId).length > 0);
    try {
      await this.deps.journal.append([
        { stream: sessionId, type: 'event.approval.resolved', payload },
        { stream: sessionId, type: 'permission.approval.resolved', payload: { ...permissionOf(p.item), decision } },
        ...(last ? [statusChangedEvent(this.deps, sessionId)] : []),
      ]);
    } finally {
      p.settle(payload);
    }
    return resolved_at;
  }

  /**
   * Why an approval that is not pending cannot be answered, from the journal: never requested
   * (40404), timed out (41001: the state table's "timed out" outlives the expiry, a restart included),
   * otherwise resolved (40902).
   */
  private async settledAs(sessionId: string, approvalId: string): Promise<'not_found' | 'already_resolved' | 'timed_out'> {
    let requested = false;
    for (const e of await this.deps.journal.readRange(sessionId, 1)) {
      const payload = e.payload as { approval_id?: string; reason?: string };
      if (payload.approval_id !== approvalId) continue;
      if (known(e).type === 'event.approval.requested') requested = true;
      else if (known(e).type === 'event.approval.resolved' && requested) return payload.reason === 'timed_out' ? 'timed_out' : 'already_resolved';
    }
    return requested ? 'already_resolved' : 'not_found';
  }
}

function outcomeOf(p: ApprovalResolvedPayload): PermissionDecision {
  if (p.decision === 'approved') return { decision: 'allow' };
  if (p.reason === 'timed_out') return { decision: 'deny', message: 'Permission request timed out: the user did not answer within 24 hours.' };
  if (p.decision === 'rejected') return { decision: 'deny', message: `The user rejected this tool call.${p.feedback ? ` Feedback: ${p.feedback}` : ''}` };
  const why = p.reason === 'turn_aborted' ? ' (the turn was aborted)' : p.reason === 'daemon_restarted' ? ' (the daemon restarted)' : '';
  return { decision: 'deny', message: `The permission request was cancelled${why}.${p.feedback ? ` Feedback: ${p.feedback}` : ''}` };
}

function actionOf(name: string, why: string): string {
  const verb = name === 'Bash' ? 'Run a command' : name === 'Write' ? 'Write a file' : name === 'Edit' || name === 'MultiEdit' ? 'Edit a file' : `Use ${name}`;
  return `${verb} (${why})`;
}

function displayOf(call: ToolCallRef, subject: string | undefined): string {
  return subject ?? JSON.stringify(call.input ?? null);
}

function clip(text: string): string {
  return text.length > DISPLAY_MAX ? `${text.slice(0, DISPLAY_MAX)}…` : text;
}

/** `permission.approval.requested` (spec/clients.md F): the request under the reference server's names, built from the item. */
function permissionOf(item: ApprovalItem): PermissionRequestedPayload {
  return {
    approval_id: item.approval_id, agent_id: item.agent_id, ...(item.turn_id ? { turn_id: item.turn_id } : {}), tool_call_id: item.tool_call_id,
    tool_name: item.tool_name, action: item.action, display: item.display ?? { kind: 'invocation', name: item.tool_name }, tool_input: item.tool_input ?? {},
  };
}
