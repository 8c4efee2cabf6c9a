import { answerIssues } from '../../questions/answers.ts';
import type { QuestionService, ResolveResult } from '../../questions/service.ts';
import { findSession, type SessionLookup } from '../../sessions/lookup.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError, validationError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { QuestionAnswerBody, QuestionAnswered, QuestionDismissed, QuestionList, QuestionListQuery, QuestionParams } from '../../../protocol/schemas/questions.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';

const tags = ['questions'];
const CODES = [Codes.SESSION_NOT_FOUND, Codes.QUESTION_NOT_FOUND, Codes.ALREADY_RESOLVED, Codes.QUESTION_TIMED_OUT];

export type QuestionRouteDeps = SessionLookup & { questions: QuestionService };

/** Core "Approvals and questions": the question half (AskUserQuestion). */
export function questionRoutes(deps: QuestionRouteDeps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/questions', operationId: 'listQuestions',
      summary: 'Pending questions of a session (status=pending is required)', tags,
      params: SessionIdParams, query: QuestionListQuery, data: QuestionList, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: async ({ params }) => ({ items: await deps.questions.list(findSession(deps, params.session_id).id) }),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/questions/{question_id}', operationId: 'answerQuestion',
      summary: 'Answer a pending question (answers keyed by question item id)', tags,
      params: QuestionParams, body: QuestionAnswerBody, data: QuestionAnswered, codes: [Codes.VALIDATION, ...CODES],
      handler: async ({ params, body }) => {
        const s = findSession(deps, params.session_id);
        const item = unwrap(await deps.questions.lookup(s.id, params.question_id), params.question_id);
        const issues = answerIssues(item, body.answers);
        if (issues.length) throw validationError(issues);
        const r = unwrap(await deps.questions.answer(s.id, params.question_id, body), params.question_id);
        return { resolved: true as const, resolved_at: r.resolved_at };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/questions/{question_id}:dismiss', operationId: 'dismissQuestion',
      summary: 'Dismiss a pending question without answering (success envelope code 40909)', tags,
      params: QuestionParams, data: QuestionDismissed, successCode: Codes.QUESTION_DISMISSED, codes: CODES,
      handler: async ({ params }) => {
        const s = findSession(deps, params.session_id);
        const r = unwrap(await deps.questions.dismissByUser(s.id, params.question_id), params.question_id);
        return { dismissed: true as const, dismissed_at: r.dismissed_at };
      },
    }),
  ];
}

function unwrap<T>(r: ResolveResult<T>, id: string): T {
  if (r === 'not_found') throw new ApiError(Codes.QUESTION_NOT_FOUND, `no pending question ${id}`);
  if (r === 'already_resolved') throw new ApiError(Codes.ALREADY_RESOLVED, `question ${id} is already resolved`, { data: { resolved: false } });
  if (r === 'timed_out') throw new ApiError(Codes.QUESTION_TIMED_OUT, `question ${id} timed out`);
  return r;
}
