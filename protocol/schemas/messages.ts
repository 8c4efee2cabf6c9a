import * as v from 'valibot';
import { TaskObject } from './tasks.ts';
import { Id, Page, queryInt } from './common.ts';
import { SessionObject } from './sessions.ts';

export const MessageRole = v.picklist(['user', 'assistant', 'tool', 'system']);

/** Opaque provider data (signatures) replayed to the model on later requests. */
const ProviderMeta = v.pipe(v.record(v.string(), v.record(v.string(), v.unknown())), v.description('opaque provider data, keyed by provider'));

/** Core "Message object" content parts (src/engine/events.ts ContentPart). */
export const ContentPart = v.variant('type', [
  v.object({ type: v.literal('text'), text: v.string() }),
  v.object({ type: v.literal('thinking'), thinking: v.string(), signature: v.optional(v.string()), meta: v.optional(ProviderMeta) }),
  v.object({ type: v.literal('tool_use'), id: v.string(), name: v.string(), input: v.unknown(), meta: v.optional(ProviderMeta) }),
  v.object({
    type: v.literal('tool_result'), tool_use_id: v.string(), content: v.unknown(), is_error: v.optional(v.boolean()), name: v.optional(v.string()),
  }),
  v.object({ type: v.literal('image'), source: v.unknown() }),
  v.object({ type: v.literal('video'), source: v.unknown() }),
  v.object({ type: v.literal('file'), file_id: v.string(), name: v.string(), media_type: v.string(), size: v.number() }),
]);

/**
 * The text of a message's content: its text parts joined by `separator` (other parts left out). A string
 * content (a model request's) is itself; anything else is ''.
 */
export function textOf(content: unknown, separator = '\n'): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const p of content) if (p && typeof p === 'object' && (p as { type?: unknown }).type === 'text') parts.push(String((p as { text?: unknown }).text ?? ''));
  return parts.join(separator);
}

/** Core "Message object". */
export const MessageObject = v.object({
  id: v.string(),
  session_id: v.string(),
  role: MessageRole,
  content: v.array(ContentPart),
  created_at: v.string(),
  prompt_id: v.optional(v.string()),
  parent_message_id: v.optional(v.string()),
  metadata: v.optional(v.record(v.string(), v.unknown())),
});

export const MessagePage = Page(MessageObject);

export const MessageListQuery = v.object({
  before_id: v.optional(Id),
  after_id: v.optional(Id),
  page_size: v.optional(queryInt(1, 100)),
  role: v.optional(MessageRole),
});

export const MessageParams = v.object({ session_id: Id, message_id: Id });

export const InFlightTurn = v.object({
  turn_id: v.string(),
  prompt_id: v.string(),
  current_prompt_id: v.string(),
  started_at: v.string(),
  step: v.number(),
  turnId: v.optional(v.pipe(v.number(), v.description('the turn as v1 frames name it: the main agent\'s 0-based turn ordinal (spec/clients.md F)'))),
});

/** GET /snapshot data. */
export const SessionSnapshot = v.object({
  as_of_seq: v.number(),
  epoch: v.string(),
  session: SessionObject,
  messages: MessagePage,
  in_flight_turn: v.nullable(InFlightTurn),
  subagents: v.optional(v.pipe(v.array(TaskObject), v.description('live subagents of the session (task objects of kind subagent); absent when none'))),
  pending_approvals: v.pipe(v.array(v.unknown()), v.description('pending approval items, as `event.approval.requested` frames carry them (camelCase ids, `turnId` the turn ordinal, `display` a block)')),
  pending_questions: v.pipe(v.array(v.unknown()), v.description('pending question items, as `event.question.requested` frames carry them')),
});
