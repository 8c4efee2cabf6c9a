import type { JournalEvent } from '../../journal/types.ts';
import type { PayloadOf } from '../contract.ts';
import { marker, mergeMeta, patchTool, turnOf } from './records-write.ts';
import { recAgent, stepUsage, type OpsOut, type RecordsState, type RecTask } from './records-state.ts';
import { agentIdOf, type Family } from './state.ts';

// The agent's status in `meta` (spec/clients.md B5, C2 "agent status"): `meta.agent` {permission, thinkingEffort,
// model, usage {total, currentTurn, byModel}, contextTokens, maxContextTokens, contextUsage, phase} and `meta.modes`
// {plan, swarm}; the `skill` and `plan.revision` markers. A family of its own that runs after `records` (it reads
// the turns that family made); its ops join the same batch as the event's other ops.

type StepUsage = { inputOther: number; output: number; inputCacheRead: number; inputCacheCreation: number };
type AgentUsage = { total?: StepUsage; currentTurn?: StepUsage; byModel?: Record<string, StepUsage> };

const ZERO: StepUsage = { inputOther: 0, output: 0, inputCacheRead: 0, inputCacheCreation: 0 };
const PERMISSIONS = new Set(['manual', 'yolo', 'auto']);

const add = (a: StepUsage | undefined, b: StepUsage): StepUsage => ({
  inputOther: (a?.inputOther ?? 0) + b.inputOther, output: (a?.output ?? 0) + b.output,
  inputCacheRead: (a?.inputCacheRead ?? 0) + b.inputCacheRead, inputCacheCreation: (a?.inputCacheCreation ?? 0) + b.inputCacheCreation,
});

const agentMeta = (s: RecordsState, agentId: string) => (recAgent(s, agentId).meta.agent ?? {}) as Record<string, unknown>;
const at = (e: JournalEvent) => Date.parse(e.ts);

/** The turn's ordinal (phases name turns by number) and the step, when the event names a known turn. */
function where(s: RecordsState, agentId: string, engineTurnId: string | undefined) {
  const t = turnOf(recAgent(s, agentId), engineTurnId);
  return t ? { t, turnId: t.ordinal, step: t.steps.at(-1) } : undefined;
}

function phase(s: RecordsState, o: OpsOut, agentId: string, ph: Record<string, unknown>): void {
  mergeMeta(s, o, agentId, { agent: { phase: ph } });
}

/** agent_config keys (session.created, session.profile_updated) as meta keys of the main agent. */
function fromAgentConfig(s: RecordsState, o: OpsOut, cfg: Record<string, unknown> | undefined): void {
  if (!cfg) return;
  const agent: Record<string, unknown> = {};
  const modes: Record<string, unknown> = {};
  if (typeof cfg.permission_mode === 'string' && PERMISSIONS.has(cfg.permission_mode)) agent.permission = cfg.permission_mode;
  if (typeof cfg.thinking === 'string' && cfg.thinking) agent.thinkingEffort = cfg.thinking;
  if (typeof cfg.model === 'string' && cfg.model) agent.model = cfg.model;
  if (typeof cfg.plan_mode === 'boolean') modes.plan = planMode(s, cfg.plan_mode);
  if (typeof cfg.dynamic_workflow_mode === 'boolean') modes.swarm = cfg.dynamic_workflow_mode ? {} : null;
  const patch: Record<string, unknown> = {};
  if (Object.keys(agent).length) patch.agent = agent;
  if (Object.keys(modes).length) patch.modes = modes;
  if (Object.keys(patch).length) mergeMeta(s, o, 'main', patch);
}

/** `modes.plan` while plan mode is on: `{version}` = the plans reviewed so far (ExitPlanMode), else `{}`; null when off. */
function planMode(s: RecordsState, on: boolean): Record<string, unknown> | null {
  if (!on) return null;
  const plans = recAgent(s, 'main').plans;
  return plans ? { version: plans } : {};
}

function stepCompleted(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.step.completed'>): void {
  const agentId = agentIdOf(p);
  const w = where(s, agentId, p.turn_id);
  // The step record's usage (records.ts set it from this event just before), not converted a second time.
  const u: StepUsage = w?.t.steps.find((x) => x.ordinal === p.step)?.usage ?? stepUsage(p.usage);
  const meta = agentMeta(s, agentId);
  const before = (meta.usage ?? {}) as AgentUsage;
  const model = w?.t.model ?? (typeof meta.model === 'string' ? meta.model : undefined);
  const usage: AgentUsage = {
    total: add(before.total, u), currentTurn: add(before.currentTurn, u),
    byModel: model ? { ...before.byModel, [model]: add(before.byModel?.[model], u) } : { ...before.byModel },
  };
  const max = typeof meta.maxContextTokens === 'number' ? meta.maxContextTokens : undefined;
  const extra = { usage, ...(max ? { contextUsage: Math.min(1, p.context_tokens / max) } : {}) };
  mergeMeta(s, o, agentId, { agent: extra });
}

function turnStarted(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.started'>): void {
  const agentId = agentIdOf(p);
  const agent: Record<string, unknown> = { usage: { ...(agentMeta(s, agentId).usage as AgentUsage | undefined), currentTurn: { ...ZERO } } };
  if (p.permission_mode) agent.permission = p.permission_mode;
  if (p.thinking) agent.thinkingEffort = p.thinking;
  if (p.max_context_tokens !== undefined) agent.maxContextTokens = p.max_context_tokens;
  const modes: Record<string, unknown> = {};
  if (p.plan_mode !== undefined) modes.plan = planMode(s, p.plan_mode);
  if (p.swarm_mode !== undefined) modes.swarm = p.swarm_mode ? {} : null;
  mergeMeta(s, o, agentId, { agent, ...(Object.keys(modes).length ? { modes } : {}) });
}

function turnEnded(s: RecordsState, o: OpsOut, p: PayloadOf<'turn.ended'>): void {
  const agentId = agentIdOf(p);
  const w = where(s, agentId, p.turn_id);
  if (!w) return;
  const reason = p.error?.kind === 'hook_blocked' ? 'blocked' : p.reason;
  phase(s, o, agentId, { kind: 'ended', turnId: w.turnId, reason, at: Date.parse(p.ended_at), ...(w.t.durationMs !== undefined ? { durationMs: w.t.durationMs } : {}) });
}

/** A subagent's outcome on its task record (B4: resultSummary, usage, error, stateReason; timed_out / lost states). */
function taskOutcome(s: RecordsState, o: OpsOut, taskId: string | undefined, outcome: Partial<RecTask>): void {
  if (!taskId) return;
  s.taskOutcomes.set(taskId, outcome);
  const task = s.tasks.get(taskId);
  if (!task) return;
  const rec = { ...task, ...outcome };
  s.tasks.set(taskId, rec);
  o.emit('main', { op: 'task.upsert', task: { ...rec } });
}

const FAILED_STATE: Partial<Record<string, RecTask['state']>> = { timed_out: 'timed_out', interrupted: 'lost' };
/** The result summary a task record keeps (the whole result is the Agent tool's output). */
const SUMMARY_CHARS = 2000;

/** The agent family: phases, usage, settings and modes, skill and plan markers, subagent outcomes. */
export const recordsAgent = {
  'session.created': ({ rec: s }, p, _e, o) => {
    s.cwd = p.session.cwd;
    fromAgentConfig(s, o, p.session.agent_config);
    mergeMeta(s, o, 'main', { agent: { phase: { kind: 'idle' } } });
  },
  'session.profile_updated': ({ rec: s }, p, _e, o) => fromAgentConfig(s, o, p.agent_config),
  'prompt.accepted': ({ rec: s }, p, _e, o) => {
    if (p.source) recAgent(s, agentIdOf(p)).origins.set(p.prompt_id, { source: p.source, skills: [], ...(p.task_ids ? { taskIds: p.task_ids } : {}) });
  },
  'skill.activated': ({ rec: s }, p, e, o) => {
    const skill = { skillName: p.skill_name, ...(p.args ? { skillArgs: p.args } : {}) };
    const a = recAgent(s, p.agent_id);
    if (p.prompt_id) {
      const o = a.origins.get(p.prompt_id) ?? { skills: [] };
      o.skills.push(skill);
      a.origins.set(p.prompt_id, o);
    }
    marker(s, o, p.agent_id, 'skill', {
      origin: { kind: 'skill_activation', trigger: p.prompt_id ? 'user-slash' : 'model', ...skill, source: p.source },
      ...(p.prompt_id ? { promptId: p.prompt_id } : {}), ...(p.tool_call_id ? { toolCallId: p.tool_call_id } : {}),
    }, e.ts);
  },
  'plugin_command.activated': ({ rec: s }, p) => {
    const a = recAgent(s, p.agent_id);
    const origin = a.origins.get(p.prompt_id) ?? { skills: [] };
    origin.command = { pluginId: p.plugin_id, commandName: p.command_name, ...(p.args ? { commandArgs: p.args } : {}) };
    a.origins.set(p.prompt_id, origin);
  },
  'turn.started': ({ rec: s }, p, _e, o) => turnStarted(s, o, p),
  'turn.step.started': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const w = where(s, agentId, p.turn_id);
    if (w) phase(s, o, agentId, { kind: 'running', turnId: w.turnId, step: p.step, stepId: `${w.t.turnId}.${p.step}`, since: at(e) });
  },
  'turn.step.completed': ({ rec: s }, p, _e, o) => stepCompleted(s, o, p),
  'turn.step.retrying': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const w = where(s, agentId, p.turn_id);
    if (!w) return;
    phase(s, o, agentId, {
      kind: 'retrying', turnId: w.turnId, step: p.step, stepId: `${w.t.turnId}.${p.step}`, failedAttempt: p.attempt, nextAttempt: p.next_attempt,
      maxAttempts: p.max_attempts ?? p.next_attempt, delayMs: p.delay_ms, since: at(e), errorName: p.error.kind,
      ...(p.error.status !== undefined ? { statusCode: p.error.status } : {}),
    });
  },
  'turn.step.interrupted': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const w = where(s, agentId, p.turn_id);
    if (!w) return;
    phase(s, o, agentId, {
      kind: 'interrupted', turnId: w.turnId, reason: p.reason === 'cancelled' ? 'aborted' : 'error', at: at(e), step: p.step,
      ...(p.error ? { message: p.error.message } : {}),
    });
  },
  'turn.ended': ({ rec: s }, p, _e, o) => turnEnded(s, o, p),
  'tool.call.started': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const w = where(s, agentId, p.turn_id);
    if (w) phase(s, o, agentId, { kind: 'tool_call', turnId: w.turnId, step: w.step?.ordinal ?? 0, toolCallId: p.tool_call_id, name: p.tool_name, since: at(e) });
  },
  'event.approval.requested': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const w = where(s, agentId, p.turn_id);
    if (w) {
      phase(s, o, agentId, {
        kind: 'awaiting_approval', turnId: w.turnId, since: at(e), ...(w.step ? { step: w.step.ordinal } : {}),
        approval: { approvalId: p.approval_id, toolCallId: p.tool_call_id, toolName: p.tool_name },
      });
    }
    if (p.tool_name !== 'ExitPlanMode') return;
    // A plan put up for review: one revision more; plan mode, when on, carries the count.
    const a = recAgent(s, agentId);
    a.plans += 1;
    marker(s, o, agentId, 'plan.revision', { version: a.plans, approvalId: p.approval_id, toolCallId: p.tool_call_id }, e.ts);
    const modes = a.meta.modes as Record<string, unknown> | undefined;
    if (agentId === 'main' && modes?.plan) mergeMeta(s, o, agentId, { modes: { plan: { version: a.plans } } });
  },
  'event.approval.resolved': ({ rec: s }, p, e, o) => {
    const agentId = agentIdOf(p);
    const meta = agentMeta(s, agentId);
    const ph = meta.phase as { kind?: string; turnId?: number; step?: number; approval?: { approvalId?: string; toolName?: string } } | undefined;
    if (ph?.kind !== 'awaiting_approval' || ph.approval?.approvalId !== p.approval_id) return;
    phase(s, o, agentId, { kind: 'tool_call', turnId: ph.turnId ?? 0, step: ph.step ?? 0, toolCallId: p.tool_call_id, name: ph.approval.toolName ?? '', since: at(e) });
  },
  'task.started': ({ rec: s }, p, _e, o) => {
    // The tool frame that started the task names it (B3 tool frame `taskId`): a subagent's Agent call, a
    // background Bash call (started so, or moved to the background on timeout / :detach).
    const call = p.task.parent_tool_call_id;
    if (!call) return;
    for (const [agentId, a] of s.agents) {
      if (a.tools.has(call)) return patchTool(s, o, agentId, call, { taskId: p.task.id });
    }
  },
  'subagent.completed': ({ rec: s }, p, _e, o) => taskOutcome(s, o, p.task_id, {
    resultSummary: p.result.slice(0, SUMMARY_CHARS),
    usage: stepUsage(p.usage),
  }),
  'subagent.failed': ({ rec: s }, p, _e, o) => {
    const state = FAILED_STATE[p.reason];
    taskOutcome(s, o, p.task_id, { stateReason: p.reason, ...(state ? { state } : {}), ...(p.error ? { error: p.error.message } : {}) });
  },
} satisfies Family;
