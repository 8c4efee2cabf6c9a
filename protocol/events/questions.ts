import * as v from 'valibot';
import { AnswerSchema, QuestionAnswerBody, QuestionItemSchema } from '../schemas/questions.ts';
import { AgentId } from './common.ts';
import { defineEvent, type PayloadOfDef } from './define.ts';

/** AskUserQuestion, on the session's stream (the interaction events of grade `turn`). */

/** Core "Question item". */
export type QuestionItem = v.InferOutput<typeof QuestionItemSchema>;
export type QuestionEntry = QuestionItem['questions'][number];
export type Answer = v.InferOutput<typeof AnswerSchema>;
export type AnswerBody = v.InferOutput<typeof QuestionAnswerBody>;

const requested = defineEvent({
  type: 'event.question.requested', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  summary: 'An AskUserQuestion call waits for the user\'s answers (Core "Question item"; times out after 24 h by default)',
  payload: QuestionItemSchema,
  turn: 'step',
});

const answered = defineEvent({
  type: 'event.question.answered', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  summary: 'A question was answered (answers keyed by question item id)',
  payload: v.object({
    question_id: v.string(), agent_id: AgentId, tool_call_id: v.string(), ...QuestionAnswerBody.entries, answered_at: v.string(),
  }),
  turn: 'step',
});

const DismissReason = v.picklist(['user', 'timed_out', 'turn_aborted', 'daemon_restarted']);
export type DismissReason = v.InferOutput<typeof DismissReason>;

const dismissed = defineEvent({
  type: 'event.question.dismissed', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'turn',
  summary: 'A question was dismissed by the user, or by the server (reason timed_out / turn_aborted / daemon_restarted)',
  payload: v.object({ question_id: v.string(), agent_id: AgentId, tool_call_id: v.string(), reason: DismissReason, dismissed_at: v.string() }),
  turn: 'step',
});

export const QUESTION_EVENTS = [requested, answered, dismissed] as const;

export type QuestionAnsweredPayload = PayloadOfDef<typeof answered>;
export type QuestionDismissedPayload = PayloadOfDef<typeof dismissed>;
