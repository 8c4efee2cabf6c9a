/** Part B "Skill descriptor" sources. */
export type SkillSource = 'project' | 'user' | 'extra' | 'plugin' | 'builtin';

/** Part B "Skill descriptor". */
export interface SkillDescriptor {
  name: string;
  description: string;
  /** The skill's directory (the one holding SKILL.md). */
  path: string;
  source: SkillSource;
  type?: string;
  disable_model_invocation?: boolean;
}

/** A discovered skill: its descriptor plus the body of SKILL.md (frontmatter stripped). */
export interface Skill extends SkillDescriptor {
  content: string;
  /** Set on a plugin command (`commands/<name>.md`, type `command`): its plugin and its own name (docs/plugins.md). */
  command?: { pluginId: string; name: string };
}

/**
 * Types only the model may use (reference knowledge it pulls in on its own);
 * every other type, and no type at all, is user-activatable (docs/skills.md).
 */
const MODEL_ONLY_TYPES = new Set(['model', 'model-only']);

export function isUserActivatable(s: Pick<SkillDescriptor, 'type'>): boolean {
  return s.type === undefined || !MODEL_ONLY_TYPES.has(s.type.toLowerCase());
}

/** What the model may see and call through the Skill tool. */
export function isModelVisible(s: Pick<SkillDescriptor, 'disable_model_invocation'>): boolean {
  return s.disable_model_invocation !== true;
}

export function toDescriptor(s: Skill): SkillDescriptor {
  const { content: _content, command: _command, ...d } = s;
  return d;
}
