import * as v from 'valibot';
import { Id, LIMITS, Line, Metadata, PermissionMode, SafeUint, Text, boundedArray, boundedJson, boundedString, maxString } from './common.ts';

/** The JSON body limit (register.ts): media data inline in a prompt cannot be larger. */
const BODY_CHARS = 16 * 1024 * 1024;

const MediaSource = v.variant('kind', [
  v.object({ kind: v.literal('url'), url: boundedString(LIMITS.lineChars), id: v.optional(maxString(LIMITS.idChars)) }),
  v.object({ kind: v.literal('base64'), media_type: Id, data: boundedString(BODY_CHARS) }),
  v.object({ kind: v.literal('file'), file_id: Id }),
  v.object({ kind: v.literal('session_media'), file_id: Id }),
]);

/** Core prompt content parts, discriminated by `type`. */
const PromptText = maxString(LIMITS.promptTextChars);

export const ContentPartSchema = v.variant('type', [
  v.object({ type: v.literal('text'), text: PromptText }),
  v.object({ type: v.literal('image'), source: MediaSource }),
  v.object({ type: v.literal('video'), source: MediaSource }),
  v.object({ type: v.literal('file'), file_id: Id, name: Line, media_type: maxString(LIMITS.idChars), size: SafeUint }),
  // Accepted by the schema but not meaningful in a user prompt; stored with the message, so bounded as a whole.
  boundedJson(v.looseObject({ type: v.literal('tool_use'), id: maxString(LIMITS.idChars), name: maxString(LIMITS.idChars), input: v.unknown() }), LIMITS.toolJson),
  boundedJson(v.looseObject({ type: v.literal('tool_result'), tool_use_id: maxString(LIMITS.idChars), content: v.unknown() }), LIMITS.toolJson),
  boundedJson(v.looseObject({ type: v.literal('thinking'), thinking: Text }), LIMITS.toolJson),
]);

export const PromptBody = v.object({
  content: v.pipe(boundedArray(ContentPartSchema), v.minLength(1, 'must hold at least one content part')),
  agent_id: v.optional(Id),
  prompt_id: v.optional(v.pipe(Id, v.maxLength(200, 'must be at most 200 characters'))),
  skills: v.optional(v.pipe(boundedArray(v.object({ name: Id, args: v.optional(Text) }), 100), v.minLength(1, 'must hold at least one skill'))),
  profile: v.optional(v.pipe(Id, v.description(
    'agent profile to bind (docs/agents.md): `default` or a custom agent name (built-in, plugin, extra_agent_dirs, <home>/agents, '
    + '<root>/.svc-code/agents); its instructions are appended to the system prompt, its tools and model apply; sticks for later prompts '
    + 'of the session until another profile is bound. Unknown name: 40001, details[0].known_profiles lists the known ones',
  ))),
  model: v.optional(Id),
  thinking: v.optional(Id),
  permission_mode: v.optional(PermissionMode),
  disabled_tools: v.optional(boundedArray(Id)),
  // Accepted but not applied.
  metadata: v.optional(Metadata),
  plan_mode: v.optional(v.boolean()),
  dynamic_workflow_mode: v.optional(v.boolean()),
  // Web clients' name for it (spec/clients.md D2, E15); accepted, not applied.
  swarm_mode: v.optional(v.boolean()),
  goal_objective: v.optional(Text),
  goal_control: v.optional(maxString(LIMITS.idChars)),
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

export const SteerBody = v.object({ prompt_ids: v.pipe(boundedArray(Id), v.minLength(1, 'must not be empty')) });
export const SteerResult = v.object({ steered: v.literal(true), prompt_ids: v.array(v.string()) });

export const PromptTailParams = v.object({ session_id: Id, prompt_id: Id });
