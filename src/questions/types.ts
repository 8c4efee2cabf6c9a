/** Journal event types of questions (session stream). */
export const QuestionEvents = {
  requested: 'event.question.requested',
  answered: 'event.question.answered',
  dismissed: 'event.question.dismissed',
} as const;

export interface QuestionOption {
  id: string;
  label: string;
  description?: string;
}

export interface QuestionEntry {
  id: string;
  question: string;
  header?: string;
  options: QuestionOption[];
  multi_select?: boolean;
  allow_other?: boolean;
}

/** Core "Question item". */
export interface QuestionItem {
  question_id: string;
  session_id: string;
  agent_id: string;
  turn_id?: string;
  tool_call_id: string;
  questions: QuestionEntry[];
  created_at: string;
}

export type Answer =
  | { kind: 'single'; option_id: string }
  | { kind: 'multi'; option_ids: string[] }
  | { kind: 'other'; text: string }
  | { kind: 'multi_with_other'; option_ids: string[]; other_text: string }
  | { kind: 'skipped' };

export interface AnswerBody {
  answers: Record<string, Answer>;
  method?: 'enter' | 'space' | 'number_key' | 'click';
  note?: string;
}

export interface QuestionAnsweredPayload extends AnswerBody {
  question_id: string;
  agent_id: string;
  tool_call_id: string;
  answered_at: string;
}

export type DismissReason = 'user' | 'timed_out' | 'turn_aborted' | 'daemon_restarted';

export interface QuestionDismissedPayload {
  question_id: string;
  agent_id: string;
  tool_call_id: string;
  reason: DismissReason;
  dismissed_at: string;
}

/** What the waiting tool call receives. */
export type QuestionOutcome =
  | { kind: 'answered'; item: QuestionItem; body: AnswerBody }
  | { kind: 'dismissed'; reason: DismissReason };
