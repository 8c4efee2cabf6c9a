import type { Logger } from '../lib/logger.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import { agentSection, skillsSection } from '../engine/system-prompt.ts';
import { sessionSkills, type SkillDeps } from '../skills/catalog.ts';
import { isModelVisible } from '../skills/types.ts';
import { toolAllowed, toolMatches } from '../tools/filter.ts';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { AgentCatalog } from './catalog.ts';
import { DEFAULT_PROFILE, type AgentDefinition } from './definitions.ts';

/** Names listed in a 40001 for an unknown profile. */
const KNOWN_LISTED_MAX = 100;

/** 40001 naming the field and the profiles that exist (Core: POST /prompts, "unknown profile"). */
export function unknownProfile(name: string, known: string[]): ApiError {
  const names = [DEFAULT_PROFILE, ...known].slice(0, KNOWN_LISTED_MAX);
  const message = `unknown profile: ${name}; known profiles: ${names.join(', ')}`;
  return new ApiError(Codes.VALIDATION, `profile: ${message}`, { details: [{ field: 'profile', message, known_profiles: names }] });
}

/**
 * The profile a prompt runs with: the one it names (`default` = none; an unknown name is a 40001), else the one
 * bound on the session before (`sticky`; a definition removed since falls back to the plain agent, with a warning).
 */
export function bindProfile(
  deps: { agents: AgentCatalog; log: Logger }, session: SessionRecord, requested: string | undefined, sticky: unknown,
): AgentDefinition | undefined {
  if (requested !== undefined) {
    if (requested === DEFAULT_PROFILE) return undefined;
    const def = deps.agents.find(session, requested);
    if (!def) throw unknownProfile(requested, deps.agents.list(session).map((d) => d.name));
    return def;
  }
  if (typeof sticky !== 'string' || sticky === DEFAULT_PROFILE) return undefined;
  const def = deps.agents.find(session, sticky);
  if (!def) deps.log.warn({ session_id: session.id, profile: sticky }, `the session's profile "${sticky}" no longer exists; the prompt runs with the default agent`);
  return def;
}

/** The tools an agent may use: its fixed list (a `:btw` agent's) narrowed by a profile's `tools`. */
export function narrowTools(fixed: readonly string[] | undefined, profile: readonly string[] | undefined): readonly string[] | undefined {
  if (!profile) return fixed;
  if (!fixed) return profile;
  return fixed.filter((name) => profile.some((e) => toolMatches(e, name)));
}

/**
 * What a turn adds to its agent's system prompt: the skills the model may load (only when the Skill tool is offered
 * to it: not disabled by [tools], the prompt, or the agent's tools) and the bound custom agent's instructions.
 */
export async function turnInstructions(
  deps: SkillDeps, session: SessionRecord, opts: { def?: AgentDefinition; only?: readonly string[]; disabled: readonly string[] },
): Promise<string> {
  const offered = toolAllowed('Skill', deps.config.current().tools, opts.disabled) && (!opts.only || opts.only.some((e) => toolMatches(e, 'Skill')));
  const skills = offered ? (await sessionSkills(deps, session)).filter(isModelVisible) : [];
  return skillsSection(skills) + (opts.def ? agentSection(opts.def) : '');
}
