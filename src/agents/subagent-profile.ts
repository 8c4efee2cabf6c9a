import type { ToolSpec } from '../providers/wire/types.ts';
import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { ToolContext } from '../tools/types.ts';
import type { AgentCatalog } from './catalog.ts';
import { callerModel, sessionDisabled } from './caller.ts';
import { oneLine, type AgentDefinition } from './definitions.ts';
import { bind, bindSubagentModel, type BoundModel } from './pool.ts';
import { turnInstructions } from './profile.ts';

/** Agents listed in the Agent tool's `subagent_type` description, and the length of each one's line. */
const LISTED_MAX = 30;
const LINE_MAX = 120;

/** What a spawn of one `subagent_type` runs with. */
export interface SubagentSetup {
  def: AgentDefinition;
  only?: readonly string[];
  bound: BoundModel;
  /** Added to the subagent's system prompt: the skills it may load, the custom agent's instructions. */
  instructions: string;
}

/**
 * A `subagent_type` (built-in or custom, docs/agents.md) with its model: an explicit `model` argument follows the
 * pool rules; without one, a custom agent's configured `model` alias is used unless `[secondary_model] force` pins
 * every subagent; otherwise the pool rules (the caller's model when none is configured).
 */
export async function subagentSetup(ctx: ToolContext, type: string, requested: string | undefined): Promise<SubagentSetup | { error: string }> {
  const catalog = ctx.deps.agents;
  const def = catalog.find(ctx.session, type);
  if (!def) return { error: `unknown subagent_type "${type}"; choose one of: ${catalog.list(ctx.session).map((d) => d.name).join(', ')}` };
  let caller: BoundModel;
  try {
    caller = callerModel(ctx);
  } catch (err) {
    return { error: `no model for the subagent: ${(err as Error).message}` };
  }
  const own = requested === undefined && !ctx.config.secondary_model.force ? catalog.modelOf(def, ctx.config) : undefined;
  const bound = own ? bind(ctx.config, own) : bindSubagentModel(ctx.config, caller, requested);
  if ('error' in bound) return bound;
  const only = def.tools;
  const instructions = await turnInstructions(ctx.deps, ctx.session, { def, ...(only ? { only } : {}), disabled: sessionDisabled(ctx) });
  return { def, ...(only ? { only } : {}), bound, instructions };
}

/** The Agent tool's spec for a session: `subagent_type` lists the custom agents too (name and one line, bounded). */
export function agentToolSpec(base: ToolSpec, catalog: AgentCatalog, session: SessionRecord): ToolSpec {
  const defs = catalog.list(session);
  if (defs.every((d) => d.source === 'builtin')) return base;
  const lines = defs.slice(0, LISTED_MAX).map((d) => (d.description ? `${d.name} (${oneLine(d.description, LINE_MAX)})` : d.name));
  const more = defs.length > LISTED_MAX ? `; and ${defs.length - LISTED_MAX} more (an unknown name lists them all)` : '';
  const description = `one of: ${lines.join('; ')}${more}; default general-purpose`;
  const schema = base.inputSchema as { properties?: Record<string, Record<string, unknown>> };
  const prop = schema.properties?.subagent_type;
  if (!prop) return base;
  return { ...base, inputSchema: { ...schema, properties: { ...schema.properties, subagent_type: { ...prop, description } } } };
}
