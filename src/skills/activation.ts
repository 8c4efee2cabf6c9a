import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { NewStreamEvent, PayloadOf } from '../../protocol/events/registry.ts';
import type { ContentPart } from '../../protocol/events/turns.ts';
import { expandArguments } from '../plugins/commands.ts';
import { sessionSkills, userSkill, type SkillDeps } from './catalog.ts';
import type { Skill } from './types.ts';

/** A skill named by a prompt (POST /prompts `skills`, or :activate), with its args. */
export interface PromptSkill {
  skill: Skill;
  args?: string;
}

/**
 * What the model reads for an activated skill: the body, tagged with its base
 * directory so relative references (scripts, templates) can be opened, then the args.
 * A plugin command is a prompt template: its body with the args in place of `$ARGUMENTS`, tagged so the
 * transcript's prompt text leaves it out as it does a skill's.
 */
export function skillText(s: Skill, args?: string): string {
  if (s.command) return `<command name="${s.name}" plugin="${s.command.pluginId}">\n${expandArguments(s.content, args)}\n</command>`;
  const head = `<skill name="${s.name}" source="${s.source}" base_directory="${s.path}">\n${s.content}\n</skill>`;
  return args ? `${head}\n\nARGUMENTS: ${args}` : head;
}

/** The named skills, each found and user-activatable (40415 / 40912 otherwise); none when not asked. */
export async function resolvePromptSkills(
  deps: SkillDeps,
  session: SessionRecord,
  asked: ReadonlyArray<{ name: string; args?: unknown }> | undefined,
): Promise<PromptSkill[]> {
  if (!asked?.length) return [];
  const all = await sessionSkills(deps, session);
  return asked.map((a) => ({ skill: userSkill(all, a.name), ...(typeof a.args === 'string' && a.args ? { args: a.args } : {}) }));
}

/** A bundled activation's user message: each skill's text, then the prompt's own content. */
export function withSkills(skills: PromptSkill[], content: ContentPart[]): ContentPart[] {
  if (!skills.length) return content;
  return [...skills.map((k): ContentPart => ({ type: 'text', text: skillText(k.skill, k.args) })), ...content];
}

export function skillActivated(sessionId: string, p: PayloadOf<'skill.activated'>): NewStreamEvent {
  return { stream: sessionId, type: 'skill.activated', payload: p };
}

/**
 * One `skill.activated` per skill of a prompt (`plugin_command.activated` for a plugin command), journaled in the
 * prompt's own batch.
 */
export function promptSkillEvents(sessionId: string, skills: PromptSkill[], agentId: string, promptId: string): NewStreamEvent[] {
  return skills.map((k) => {
    const args = k.args ? { args: k.args } : {};
    if (k.skill.command) {
      return {
        stream: sessionId, type: 'plugin_command.activated',
        payload: { agent_id: agentId, plugin_id: k.skill.command.pluginId, command_name: k.skill.command.name, ...args, prompt_id: promptId },
      };
    }
    return skillActivated(sessionId, { agent_id: agentId, skill_name: k.skill.name, source: k.skill.source, ...args, prompt_id: promptId });
  });
}
