import type { QuestionOutcome } from './types.ts';
import type { Answer, QuestionEntry, QuestionItem } from '../../protocol/events/questions.ts';

export interface FieldIssue {
  field: string;
  message: string;
}

/** Cross-checks answers against the question: every item answered, known item and option ids only. */
export function answerIssues(item: QuestionItem, answers: Record<string, Answer>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const byId = new Map(item.questions.map((q) => [q.id, q]));
  for (const id of Object.keys(answers)) {
    if (!byId.has(id)) issues.push({ field: `answers.${id}`, message: 'unknown question item id' });
  }
  for (const q of item.questions) {
    const a = answers[q.id];
    if (!a) issues.push({ field: `answers.${q.id}`, message: 'missing answer' });
    else issues.push(...optionIssues(q, a));
  }
  return issues;
}

function optionIssues(q: QuestionEntry, a: Answer): FieldIssue[] {
  const ids = a.kind === 'single' ? [a.option_id] : a.kind === 'multi' || a.kind === 'multi_with_other' ? a.option_ids : [];
  const known = new Set(q.options.map((o) => o.id));
  const out = ids.filter((id) => !known.has(id)).map((id) => ({ field: `answers.${q.id}`, message: `unknown option id ${id}` }));
  if (new Set(ids).size !== ids.length) out.push({ field: `answers.${q.id}`, message: 'duplicate option ids' });
  return out;
}

/** The tool result text the model reads. */
export function outcomeText(o: QuestionOutcome): string {
  if (o.kind === 'dismissed') {
    if (o.reason === 'timed_out') return 'The question timed out: the user did not answer.';
    if (o.reason === 'user') return 'The user dismissed the question without answering. Continue without these answers or ask differently.';
    return `The question was cancelled (${o.reason.replace('_', ' ')}).`;
  }
  const lines = o.item.questions.map((q) => `"${q.question}" -> ${answerText(q, o.body.answers[q.id])}`);
  if (o.body.note) lines.push(`User note: ${o.body.note}`);
  return `The user answered:\n${lines.join('\n')}`;
}

function answerText(q: QuestionEntry, a: Answer | undefined): string {
  const label = (id: string) => q.options.find((o) => o.id === id)?.label ?? id;
  if (!a || a.kind === 'skipped') return '(skipped)';
  if (a.kind === 'single') return label(a.option_id);
  if (a.kind === 'multi') return a.option_ids.map(label).join(', ');
  if (a.kind === 'other') return `Other: ${a.text}`;
  return [...a.option_ids.map(label), `Other: ${a.other_text}`].join(', ');
}
