import * as v from 'valibot';
import { Id, Text, boundedArray, objectOnly } from './common.ts';

export const QuestionParams = v.object({ session_id: Id, question_id: Id });

/** `status` is required and `pending` is its only value. */
export const QuestionListQuery = v.object({ status: v.picklist(['pending'], 'must be `pending`') });

const OptionSchema = v.object({ id: v.string(), label: v.string(), description: v.optional(v.string()) });

/** Core "Question item". */
export const QuestionItemSchema = v.object({
  question_id: v.string(),
  session_id: v.string(),
  agent_id: v.string(),
  turn_id: v.optional(v.string()),
  tool_call_id: v.string(),
  questions: v.array(v.object({
    id: v.string(),
    question: v.string(),
    header: v.optional(v.string()),
    options: v.array(OptionSchema),
    multi_select: v.optional(v.boolean()),
    allow_other: v.optional(v.boolean()),
  })),
  created_at: v.string(),
});

export const QuestionList = v.object({ items: v.array(QuestionItemSchema) });

const OptionIds = v.pipe(boundedArray(Id, 100), v.minLength(1, 'at least one option id'));

/** One answer, by `kind`. */
export const AnswerSchema = v.variant('kind', [
  v.object({ kind: v.literal('single'), option_id: Id }),
  v.object({ kind: v.literal('multi'), option_ids: OptionIds }),
  v.object({ kind: v.literal('other'), text: Text }),
  v.object({ kind: v.literal('multi_with_other'), option_ids: OptionIds, other_text: Text }),
  v.object({ kind: v.literal('skipped') }),
]);

export const QuestionAnswerBody = v.object({
  answers: v.pipe(objectOnly(v.record(Id, AnswerSchema)), v.maxEntries(100, 'at most 100 answers')),
  method: v.optional(v.picklist(['enter', 'space', 'number_key', 'click'])),
  note: v.optional(Text),
});

export const QuestionAnswered = v.object({ resolved: v.literal(true), resolved_at: v.string() });
export const QuestionDismissed = v.object({ dismissed: v.literal(true), dismissed_at: v.string() });
