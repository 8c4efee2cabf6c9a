import type { EventJournal } from '../events/journal.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import type { PromptInput } from '../../protocol/schemas/prompts.ts';
import { planPromptMedia, type PromptMediaDeps } from '../media/prompt-media.ts';
import { findOwnedSession, type OwnedSessionLookup } from '../sessions/lookup.ts';
import { promptSkillEvents, resolvePromptSkills, withSkills } from '../skills/activation.ts';
import type { SkillDeps } from '../skills/catalog.ts';
import type { PromptAcceptedPayload } from '../../protocol/events/turns.ts';
import { checkCredential, checkThinkingValue, resolveModel, resolveThinking, type ClientCache, type TokenSource } from './model-resolve.ts';
import { toPromptObject, type PromptRecord } from './prompt-state.ts';
import type { EngineRegistry } from './runtime-registry.ts';
import type { SessionRuntime } from './runtime.ts';
import { MAIN_AGENT } from './turn.ts';
import type { PromptTracer } from './trace.ts';
import { takeLoopTurn } from '../lib/loop-turns.ts';
import type { AgentCatalog } from '../agents/catalog.ts';
import { bindProfile, narrowTools, turnInstructions } from '../agents/profile.ts';
import type { Logger } from '../lib/logger.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';

function checkReservable(rt: SessionRuntime, id: string | undefined): void {
  if (id === undefined) return;
  const known = rt.prompts.get(id);
  if (rt.reserved.has(id) || (known && (known.status === 'queued' || known.status === 'running'))) {
    throw new ApiError(Codes.PROMPT_ID_RESERVED, `prompt_id ${id} is reserved by an in-flight prompt`, { details: { prompt_id: id } });
  }
  if (known) throw new ApiError(Codes.PROMPT_COMPLETED, `prompt ${id} already completed`, { data: { aborted: false }, details: { prompt_id: id } });
}

/** agent_config fields a prompt may set for its session (Core: Prompts, overrides). */
type SessionOverrides = Pick<PromptInput, 'profile' | 'model' | 'thinking' | 'permission_mode' | 'disabled_tools'>;

/** The prompt's overrides in Core's order (profile, model, thinking, permission_mode, disabled_tools), absent ones left out. */
function sessionOverrides(body: PromptInput): SessionOverrides {
  const out: SessionOverrides = {};
  if (body.profile !== undefined) out.profile = body.profile;
  if (body.model) out.model = body.model;
  if (body.thinking !== undefined) out.thinking = body.thinking;
  if (body.permission_mode !== undefined) out.permission_mode = body.permission_mode;
  if (body.disabled_tools !== undefined) out.disabled_tools = [...body.disabled_tools];
  return out;
}

/** What the prompt intake checks against, stores media in and journals to. */
export type IntakeDeps = OwnedSessionLookup & PromptMediaDeps & SkillDeps & {
  journal: EventJournal;
  engine: Pick<EngineRegistry, 'agentRuntime'>;
  auth: TokenSource;
  clients: ClientCache;
  clock: Clock;
  ids: Ids;
  /** Custom agents a prompt's `profile` binds (docs/agents.md). */
  agents: AgentCatalog;
  log: Logger;
  /** The prompt-latency trace (src/engine/trace.ts): marks each stage of the intake. */
  tracer: PromptTracer;
};

/**
 * Who queues a prompt other than the user (POST /prompts): a skill activation, a goal continuation, or the notes
 * of background tasks that ended while the agent was idle (a follow-up turn; src/tasks/wakeups.ts), whose user
 * message keeps the notes' `metadata`.
 */
export type PromptSource = 'skill' | 'goal' | { kind: 'task'; taskIds: string[]; metadata: Record<string, unknown> };

/** POST /prompts: validates in Core's order, then queues the prompt; resolves once `prompt.accepted` is on disk. */
export async function acceptPrompt(deps: IntakeDeps, sessionId: string, body: PromptInput, from?: PromptSource) {
  const source = typeof from === 'object' ? from.kind : from;
  const task = typeof from === 'object' ? from : undefined;
  // Prompts arriving together are taken one per loop iteration, with I/O handled in between (see loop-turns.ts).
  await takeLoopTurn();
  deps.tracer.mark(sessionId, 'intake.start');
  const session = findOwnedSession(deps, sessionId);
  if (body.prompt_id !== undefined && body.skills) throw validationError([{ field: 'prompt_id', message: 'cannot be combined with skills' }]);
  // Media is checked before anything else (40001/40407/41003) but stored only once every check passed.
  const media = await planPromptMedia(deps, sessionId, body.content);
  deps.tracer.mark(sessionId, 'intake.media');
  const skills = await resolvePromptSkills(deps, session, body.skills);
  deps.tracer.mark(sessionId, 'intake.skills');
  // The main agent, or a `:btw` agent (40001 for an unknown agent_id).
  const rt = await deps.engine.agentRuntime(session, body.agent_id ?? MAIN_AGENT);
  deps.tracer.mark(sessionId, 'intake.runtime');
  checkReservable(rt, body.prompt_id);
  const promptId = body.prompt_id ?? deps.ids.next('prompt');
  rt.reserved.add(promptId);
  try {
    const c = deps.config.current();
    const agentConfig = session.agent_config as SessionOverrides;
    // Core's order: the profile first (bound with its model), then model, thinking, permission_mode, disabled_tools.
    // A `:btw` agent does not take the main agent's bound profile.
    const profile = bindProfile(deps, session, body.profile, rt.agentId === MAIN_AGENT ? agentConfig.profile : undefined);
    const profileModel = body.profile !== undefined && profile ? deps.agents.modelOf(profile, c) : undefined;
    const model = resolveModel(c, body.model, profileModel, agentConfig.model);
    deps.tracer.mark(sessionId, 'intake.model');
    await checkCredential(deps, model);
    deps.tracer.mark(sessionId, 'intake.credential');
    checkThinkingValue(body.thinking, 'thinking');
    const thinking = resolveThinking(c, model.record, body.thinking, agentConfig.thinking);
    const disabledTools = body.disabled_tools ? [...body.disabled_tools] : (Array.isArray(agentConfig.disabled_tools) ? agentConfig.disabled_tools : []);
    const only = narrowTools(rt.toolScope?.only, profile?.tools);
    const instructions = await turnInstructions(deps, session, { ...(profile ? { def: profile } : {}), ...(only ? { only } : {}), disabled: disabledTools });
    // Last fallible step before the prompt is journaled: stores the media (undone by discard below).
    const content = withSkills(skills, await media.commit());
    // A `:btw` agent's prompt does not change the session's own agent_config.
    const sticky = rt.agentId === MAIN_AGENT ? sessionOverrides(body) : {};
    // Binding a profile with a model binds the model too (a later prompt's `model` overrides it, as it overrides any).
    if (profileModel && !body.model && rt.agentId === MAIN_AGENT) sticky.model = profileModel;
    const overrides: PromptAcceptedPayload['overrides'] = JSON.parse(JSON.stringify({
      profile: body.profile, model: model.alias, thinking: thinking.enabled ? thinking.effort ?? 'on' : 'off',
      permission_mode: body.permission_mode, disabled_tools: body.disabled_tools,
    }));
    const record: PromptRecord = {
      prompt_id: promptId, user_message_id: deps.ids.next('msg'), content,
      created_at: deps.clock.now().toISOString(), status: 'queued', overrides, ...(task ? { metadata: task.metadata } : {}),
    };
    const { status: _status, metadata: _message, ...fields } = record;
    const payload: PromptAcceptedPayload = {
      agent_id: rt.agentId, ...fields, overrides, ...(body.metadata ? { metadata: body.metadata } : {}), ...(source ? { source } : {}),
      ...(task ? { task_ids: task.taskIds } : {}),
    };
    // The overrides become the session's own agent_config in the same batch, so they outlive the process.
    // appendNow: a refused append throws here, before the prompt is queued (its turn would journal it).
    try {
      record.accepted = deps.journal.appendNow([
        { stream: sessionId, type: 'prompt.accepted', payload },
        ...promptSkillEvents(sessionId, skills, MAIN_AGENT, promptId),
        ...(Object.keys(sticky).length ? [{ stream: sessionId, type: 'session.profile_updated', payload: { agent_config: sticky } } satisfies NewStreamEvent] : []),
      ]).then(() => undefined);
    } catch (err) {
      await media.discard();
      throw err;
    }
    deps.tracer.mark(sessionId, 'intake.append');
    const status = rt.enqueue(record, { model, thinking, disabledTools, ...(profile?.tools ? { only: profile.tools } : {}), ...(instructions ? { instructions } : {}) });
    deps.tracer.mark(sessionId, 'intake.enqueued');
    await record.accepted.catch(async (err) => {
      await media.discard();
      throw err;
    });
    deps.tracer.mark(sessionId, 'intake.committed');
    return toPromptObject(record, status);
  } finally {
    rt.reserved.delete(promptId);
  }
}
