import type { JournalEvent } from '../../../journal/types.ts';
import type { ApprovalItem } from '../../../protocol/events/approvals.ts';
import type { QuestionItem } from '../../../protocol/events/questions.ts';
import type { PermissionService } from '../../permissions/service.ts';
import type { QuestionService } from '../../questions/service.ts';
import { known } from '../../../protocol/events/known.ts';

/** What the agent is told when print mode refuses a call that needs an approval (the rejection's feedback). */
export const REFUSAL_FEEDBACK = 'svc-code runs non-interactively (print mode), so nobody can approve this call and it was refused. '
  + 'Do not retry it: finish the task another way, or end by saying what should be run and that it needs '
  + '--permission-mode auto or yolo (or a [[permission.rules]] allow rule).';

const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * Print mode has nobody to ask: a reaction to committed events that answers, as soon as it is on disk, every
 * approval the session's agents request with a rejection the agent can act on (REFUSAL_FEEDBACK), and every
 * question with a dismissal. Both go through the same journaled resolutions a client's answer takes, so the session
 * reads (and replays) as what happened; each is reported on stderr.
 */
export function unattended(deps: { permissions: Pick<PermissionService, 'resolve'>; questions: Pick<QuestionService, 'dismissByUser'> }, sessionId: string, warn: (line: string) => void) {
  return (events: JournalEvent[]): Promise<unknown> | void => {
    const answers: Array<Promise<unknown>> = [];
    for (const e of events) {
      if (e.stream !== sessionId) continue;
      if (known(e).type === 'event.approval.requested') {
        const item = e.payload as ApprovalItem;
        warn(`refused ${item.tool_name} (${item.action}): ${clip(item.tool_input_display)}; print mode cannot ask for approval: allow it with --permission-mode auto or --yolo, or a [[permission.rules]] allow rule`);
        answers.push(deps.permissions.resolve(sessionId, item.approval_id, { decision: 'rejected', feedback: REFUSAL_FEEDBACK }));
      } else if (known(e).type === 'event.question.requested') {
        const item = e.payload as QuestionItem;
        warn(`dismissed a question (print mode cannot answer it): ${clip(item.questions[0]?.question ?? '')}`);
        answers.push(deps.questions.dismissByUser(sessionId, item.question_id));
      }
    }
    if (answers.length) return Promise.all(answers);
  };
}
