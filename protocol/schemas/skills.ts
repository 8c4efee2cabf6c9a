import * as v from 'valibot';
import { Id, Text, boundedArray } from './common.ts';
import { ContentPartSchema } from './prompts.ts';

/** Part B "Skill descriptor". */
export const SkillDescriptorSchema = v.object({
  name: v.string(),
  description: v.string(),
  path: v.pipe(v.string(), v.description('the skill\'s directory (holding SKILL.md); for a plugin command, its .md file')),
  source: v.picklist(['project', 'user', 'extra', 'plugin', 'builtin']),
  type: v.optional(v.pipe(v.string(), v.description('`model` / `model-only` skills are not user-activatable (40912); '
    + '`command`: a plugin command (`<plugin>:<command>`, user-only, docs/plugins.md)'))),
  disable_model_invocation: v.optional(v.pipe(v.boolean(), v.description('true hides the skill from the model (Skill tool)'))),
});

export const SkillList = v.object({ skills: v.array(SkillDescriptorSchema) });

export const SkillTailParams = v.object({ session_id: Id, skill_name: Id });

const ATTACHMENT_TYPES = ['image', 'video', 'file'];

/** POST skills/{skill_name}:activate: image/video/file parts only, validated like prompt media. */
export const ActivateSkillBody = v.object({
  args: v.optional(Text),
  attachments: v.optional(boundedArray(v.pipe(
    ContentPartSchema,
    v.check((p) => ATTACHMENT_TYPES.includes(p.type), 'must be an image, video or file part'),
  ), 100)),
});

export const ActivateSkillResult = v.object({ activated: v.literal(true), skill_name: v.string() });
