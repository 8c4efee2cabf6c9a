import * as v from 'valibot';
import { truncateHead } from './truncate.ts';
import { skillActivated, skillText } from '../skills/activation.ts';
import { sessionSkills } from '../skills/catalog.ts';
import { isModelVisible, type Skill } from '../skills/types.ts';
import { ToolError, defineTool, type ToolDef } from './types.ts';

const Input = v.object({
  skill: v.pipe(v.string(), v.minLength(1)),
  args: v.optional(v.string()),
});

function catalogText(skills: Skill[]): string {
  if (!skills.length) return 'No skills are available.';
  return `Available skills:\n${skills.map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ''}`).join('\n')}`;
}

/**
 * Loads a skill's instructions into the conversation. The tool description is
 * static (one ToolDef for every session), so the skill catalog is listed in the
 * result of an unknown name rather than in the description.
 */
export const skillTool = defineTool({
  name: 'Skill',
  description: 'Load a skill (a packaged set of instructions from the project, the user or the product) by name, with optional arguments. '
    + 'The result holds the skill\'s instructions and its base directory, whose files you can read. '
    + 'Call it with an unknown name (for example "list") to get the names and descriptions of the available skills. '
    + 'Output is capped by the same character budget as Read ([read] default_max_chars).',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    const visible = (await sessionSkills(ctx.deps, ctx.session)).filter(isModelVisible);
    const skill = visible.find((s) => s.name === input.skill);
    if (!skill) throw new ToolError(`Unknown skill: ${input.skill}. ${catalogText(visible)}`);
    await ctx.deps.journal.append([skillActivated(ctx.session.id, {
      agent_id: ctx.agentId, skill_name: skill.name, source: skill.source,
      ...(input.args ? { args: input.args } : {}), ...(ctx.toolCallId ? { tool_call_id: ctx.toolCallId } : {}),
    })]);
    return truncateHead(skillText(skill, input.args), ctx.config.read.default_max_chars);
  },
});

export const skillTools: ToolDef[] = [skillTool];
