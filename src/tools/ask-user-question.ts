import * as v from 'valibot';
import { outcomeText } from '../questions/answers.ts';
import { ToolError, defineTool } from './types.ts';

const Option = v.object({
  label: v.pipe(v.string(), v.minLength(1)),
  description: v.optional(v.string()),
});

const Question = v.object({
  question: v.pipe(v.string(), v.minLength(1)),
  header: v.optional(v.string()),
  options: v.pipe(v.array(Option), v.minLength(2, 'needs 2 to 4 options'), v.maxLength(4, 'needs 2 to 4 options')),
  multiSelect: v.optional(v.boolean()),
});

const Input = v.object({
  questions: v.pipe(v.array(Question), v.minLength(1, 'needs 1 to 4 questions'), v.maxLength(4, 'needs 1 to 4 questions')),
});

/**
 * Asks the user 1-4 multiple-choice questions and waits for the answer (Core "Question item").
 * Declared read-only so the permission gate never asks to approve a question.
 */
export const askUserQuestionTool = defineTool({
  name: 'AskUserQuestion',
  description: 'Ask the user 1 to 4 multiple-choice questions (2 to 4 options each; the user may also answer in free text) and wait for the answers. Use it to clarify requirements or choose between approaches.',
  schema: Input,
  readOnly: true,
  async run(input, ctx) {
    const questions = ctx.deps.questions;
    if (!questions || !ctx.toolCallId) throw new ToolError('AskUserQuestion is not available here');
    const turnId = ctx.session.active_turn?.turn_id;
    const outcome = await questions.ask(ctx.session.id, {
      agentId: ctx.agentId, toolCallId: ctx.toolCallId, ...(turnId ? { turnId } : {}),
      questions: input.questions.map((q) => ({
        question: q.question, ...(q.header !== undefined ? { header: q.header } : {}), options: q.options,
        ...(q.multiSelect !== undefined ? { multi_select: q.multiSelect } : {}),
      })),
    }, ctx.signal);
    if (outcome.kind === 'dismissed') throw new ToolError(outcomeText(outcome));
    return outcomeText(outcome);
  },
});
