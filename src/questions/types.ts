import type { AnswerBody, DismissReason, QuestionItem } from '../../protocol/events/questions.ts';

/** What the waiting tool call receives. */
export type QuestionOutcome =
  | { kind: 'answered'; item: QuestionItem; body: AnswerBody }
  | { kind: 'dismissed'; reason: DismissReason };
