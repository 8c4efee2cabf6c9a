import type { BoundModel } from './pool.ts';
import { sessionModel } from '../engine/model-resolve.ts';
import type { ToolContext } from '../tools/types.ts';

/** Subagent types: which tools each may use (the spawn exclusions always apply). */
export const SUBAGENT_TYPES: Record<string, { summary: string; only?: readonly string[] }> = {
  'general-purpose': { summary: 'every tool but Agent, AskUserQuestion and the plan-mode tools' },
  explore: { summary: 'read-only research: Read, Grep, Glob, WebSearch, WebFetch', only: ['Read', 'Grep', 'Glob', 'WebSearch', 'WebFetch'] },
};

/** The calling agent's own model and effort (what `primary` and an unconfigured pool mean). */
export function callerModel(ctx: ToolContext): BoundModel {
  return sessionModel(ctx.deps, ctx.session);
}

/** The session's sticky disabled_tools (a prompt's override is stored there before its turn runs). */
export function sessionDisabled(ctx: ToolContext): string[] {
  const list = (ctx.session.agent_config as { disabled_tools?: unknown }).disabled_tools;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
}

