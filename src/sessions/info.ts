import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import { contextTokens } from '../../projections/usage/estimate.ts';
import type { UsageProjection } from '../../projections/usage/session-usage.ts';
import type { ConfigService } from '../config/service.ts';
import type { EventJournal } from '../events/journal.ts';
import { effectiveModel } from '../providers/models/items.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { LiveSessions } from './live.ts';
import { agentSettings } from './agent-settings.ts';
import { findOwnedSession, type OwnedSessionLookup } from './lookup.ts';

/** AGENTS.md files larger than this are flagged: they crowd the model's context. */
export const AGENTS_MD_WARN_BYTES = 32 * 1024;

/** Runtimes a session can be bound to. Only the local machine exists today. */
export const RUNTIMES = ['local'] as const;

/** What a session's model and context size are read from. */
export interface SessionInfoDeps {
  config: ConfigService;
  live: LiveSessions;
  usage: UsageProjection;
}

/** The session's model alias: the live one, else its agent_config.model, else the global default_model. */
export function resolvedModel(deps: Pick<SessionInfoDeps, 'config' | 'live'>, s: SessionRecord): string | undefined {
  const cfg = s.agent_config as Record<string, unknown>;
  return deps.live.get(s.id)?.model ?? (typeof cfg.model === 'string' && cfg.model ? cfg.model : deps.config.defaultModel());
}

/** Context window of a model alias (max_input_size when set, else max_context_size), when configured. */
export function contextLimit(deps: { config: ConfigService }, alias: string | undefined): number | undefined {
  const rec = alias ? deps.config.current().models[alias] : undefined;
  if (!rec) return undefined;
  const m = effectiveModel(rec);
  const limit = Number(m.max_input_size ?? m.max_context_size);
  return Number.isFinite(limit) && limit > 0 ? limit : undefined;
}

/** Reported context size per `token_counting.strategy`, with its limit and 0-1 usage when the limit is known. */
export function sessionContext(deps: SessionInfoDeps, s: SessionRecord) {
  const tokens = contextTokens(deps.usage.get(s.id), deps.config.current().token_counting.strategy);
  const limit = contextLimit(deps, resolvedModel(deps, s));
  return { tokens, limit, usage: limit ? Math.min(1, tokens / limit) : undefined };
}

/** GET /status: what is known of a session's agent configuration (cold sessions report defaults). */
export function sessionStatus(deps: SessionInfoDeps, s: SessionRecord) {
  const cfg = s.agent_config as Record<string, unknown>;
  const live = deps.live.get(s.id);
  const model = resolvedModel(deps, s);
  const out: Record<string, unknown> = { busy: live?.busy ?? false };
  if (model) out.model = model;
  out.thinking_level = typeof cfg.thinking === 'string' ? cfg.thinking : 'default';
  const modes = agentSettings(deps.config, cfg);
  out.permission = modes.permission_mode;
  out.plan_mode = modes.plan_mode;
  out.dynamic_workflow_mode = modes.swarm_mode;
  // The names web clients read (spec/clients.md E15): swarm mode is dynamic workflow mode; no tower mode here.
  out.swarm_mode = out.dynamic_workflow_mode;
  out.tower_mode = cfg.tower_mode === true;
  const ctx = sessionContext(deps, s);
  out.context_tokens = ctx.tokens;
  if (ctx.limit !== undefined) out.max_context_tokens = ctx.limit;
  if (ctx.usage !== undefined) out.context_usage = ctx.usage;
  return out;
}

/** GET /warnings: problems with the session's project files. */
export async function sessionWarnings(s: SessionRecord) {
  const warnings: { code: string; message: string; severity: 'info' | 'warning' | 'error' }[] = [];
  try {
    const st = await stat(path.join(s.cwd, 'AGENTS.md'));
    if (st.isFile() && st.size > AGENTS_MD_WARN_BYTES) {
      warnings.push({
        code: 'agents-md-oversized',
        message: `AGENTS.md is ${st.size} bytes (over ${AGENTS_MD_WARN_BYTES}); it takes a large share of the model's context`,
        severity: 'warning',
      });
    }
  } catch {
    /* no AGENTS.md: nothing to warn about */
  }
  return { warnings };
}

/** POST /runtime: binds the session to another runtime. */
export async function bindRuntime(deps: OwnedSessionLookup & { journal: EventJournal }, id: string, runtimeId: string) {
  const s = findOwnedSession(deps, id);
  if (!(RUNTIMES as readonly string[]).includes(runtimeId)) {
    throw new ApiError(Codes.RUNTIME_NOT_FOUND, `runtime not found: ${runtimeId}`, { details: { runtime_id: runtimeId, known: RUNTIMES } });
  }
  if (s.runtime_id !== runtimeId) await deps.journal.append([{ stream: id, type: 'session.runtime_bound', payload: { runtime_id: runtimeId } }]);
  return { workspace_id: s.workspace_id, runtime_id: runtimeId };
}
