import type { AnswerBody, DismissReason, QuestionItem } from '../../protocol/events/questions.ts';
import type { EventType } from '../../protocol/events/registry.ts';

/** Journal event types of questions (session stream; schemas: protocol/events/questions.ts). */
export const QuestionEvents = {
  requested: 'event.question.requested',
  answered: 'event.question.answered',
  dismissed: 'event.question.dismissed',
} as const satisfies Record<string, EventType>;

/** What the waiting tool call receives. */
export type QuestionOutcome =
  | { kind: 'answered'; item: QuestionItem; body: AnswerBody }
  | { kind: 'dismissed'; reason: DismissReason };
