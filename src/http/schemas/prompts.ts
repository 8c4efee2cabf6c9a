import * as v from 'valibot';
import { Metadata, NonEmptyString, PermissionMode } from './common.ts';

const MediaSource = v.variant('kind', [
  v.object({ kind: v.literal('url'), url: NonEmptyString, id: v.optional(v.string()) }),
  v.object({ kind: v.literal('base64'), media_type: NonEmptyString, data: NonEmptyString }),
  v.object({ kind: v.literal('file'), file_id: NonEmptyString }),
  v.object({ kind: v.literal('session_media'), file_id: NonEmptyString }),
]);

/** Core prompt content parts, discriminated by `type`. */
export const ContentPartSchema = v.variant('type', [
  v.object({ type: v.literal('text'), text: v.string() }),
  v.object({ type: v.literal('image'), source: MediaSource }),
  v.object({ type: v.literal('video'), source: MediaSource }),
  v.object({ type: v.literal('file'), file_id: NonEmptyString, name: v.string(), media_type: v.string(), size: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
  // Accepted by the schema but not meaningful in a user prompt.
  v.looseObject({ type: v.literal('tool_use'), id: v.string(), name: v.string(), input: v.unknown() }),
  v.looseObject({ type: v.literal('tool_result'), tool_use_id: v.string(), content: v.unknown() }),
  v.looseObject({ type: v.literal('thinking'), thinking: v.string() }),
]);

export const PromptBody = v.object({
  content: v.pipe(v.array(ContentPartSchema), v.minLength(1, 'must hold at least one content part')),
  agent_id: v.optional(NonEmptyString),
  prompt_id: v.optional(v.pipe(NonEmptyString, v.maxLength(200))),
  skills: v.optional(v.pipe(v.array(v.object({ name: NonEmptyString, args: v.optional(v.string()) })), v.minLength(1, 'must hold at least one skill'))),
  profile: v.optional(NonEmptyString),
  model: v.optional(NonEmptyString),
  thinking: v.optional(NonEmptyString),
  permission_mode: v.optional(PermissionMode),
  disabled_tools: v.optional(v.array(NonEmptyString)),
  // Accepted but not applied.
  metadata: v.optional(Metadata),
  plan_mode: v.optional(v.boolean()),
  dynamic_workflow_mode: v.optional(v.boolean()),
  goal_objective: v.optional(v.string()),
  goal_control: v.optional(v.string()),
});
export type PromptInput = v.InferOutput<typeof PromptBody>;

export const PromptObject = v.object({
  prompt_id: v.string(),
  user_message_id: v.string(),
  status: v.picklist(['running', 'queued', 'blocked']),
  content: v.array(v.unknown()),
  created_at: v.string(),
});

export const PromptList = v.object({ active: v.nullable(PromptObject), queued: v.array(PromptObject) });

export const SteerBody = v.object({ prompt_ids: v.pipe(v.array(NonEmptyString), v.minLength(1, 'must not be empty')) });
export const SteerResult = v.object({ steered: v.literal(true), prompt_ids: v.array(v.string()) });

export const PromptTailParams = v.object({ session_id: NonEmptyString, prompt_id: NonEmptyString });
