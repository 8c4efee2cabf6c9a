import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Answer } from '../../protocol/events/questions.ts';
import type { AskRequest, QuestionService } from '../questions/service.ts';

type FormParams = Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
type Field = { type?: string; title?: string; description?: string; enum?: unknown[]; oneOf?: Array<{ const?: unknown; title?: string }>; default?: unknown };

/** The call an elicitation belongs to (the MCP tool call in flight on that server). */
export interface ElicitSite {
  sessionId: string;
  agentId: string;
  turnId?: string;
  toolCallId: string;
}

const DECLINE = 'Decline';
const CANCEL = 'Cancel';
const MAX_QUESTIONS = 4;

interface Asked { name: string; field: Field; choices: string[] }

/**
 * An elicitation request (form mode) as a question the user answers through the questions routes
 * (docs/mcp.md "Elicitation"): one question per requested field (at most 4), choices for booleans
 * and small enums, typed text (`other`) for the rest, and `Decline` / `Cancel` options on every
 * question. A dismissal, or a requested field that cannot be asked, declines.
 */
export async function elicitThroughQuestions(questions: QuestionService, server: string, site: ElicitSite, params: FormParams, signal: AbortSignal): Promise<ElicitResult> {
  const props = Object.entries((params.requestedSchema.properties ?? {}) as Record<string, Field>);
  if (props.length > MAX_QUESTIONS) return { action: 'decline' };
  const asked: Asked[] = props.map(([name, field]) => ({ name, field, choices: choicesOf(field) }));
  const entries: AskRequest['questions'] = asked.length
    ? asked.map((a, i) => ({
      question: `${i === 0 ? `${server} asks: ${params.message}\n` : ''}${a.field.title ?? a.name}${a.field.description ? ` (${a.field.description})` : ''}`,
      header: `MCP ${server}`.slice(0, 100),
      options: [...a.choices.map((label) => ({ label })), { label: DECLINE, description: 'decline the request' }, ...(a.choices.length < 2 ? [{ label: CANCEL, description: 'cancel the request' }] : [])],
    }))
    : [{ question: `${server} asks: ${params.message}`, header: `MCP ${server}`.slice(0, 100), options: [{ label: 'Accept' }, { label: DECLINE }, { label: CANCEL }] }];
  const outcome = await questions.ask(site.sessionId, { agentId: site.agentId, ...(site.turnId ? { turnId: site.turnId } : {}), toolCallId: site.toolCallId, questions: entries }, signal);
  if (outcome.kind !== 'answered') return { action: 'decline' };
  const answers = outcome.body.answers as Record<string, Answer>;
  const labelOf = (qi: number, a: Answer) => (a.kind === 'single' ? outcome.item.questions[qi]?.options.find((o) => o.id === a.option_id)?.label : undefined);
  if (!asked.length) {
    const label = labelOf(0, answers.q_0 ?? { kind: 'skipped' });
    return label === 'Accept' ? { action: 'accept', content: {} } : { action: label === CANCEL ? 'cancel' : 'decline' };
  }
  const required = new Set((params.requestedSchema.required ?? []) as string[]);
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [i, a] of asked.entries()) {
    const answer = answers[`q_${i}`] ?? { kind: 'skipped' };
    const label = labelOf(i, answer);
    if (label === DECLINE) return { action: 'decline' };
    if (label === CANCEL) return { action: 'cancel' };
    const raw = label ?? (answer.kind === 'other' ? answer.text : answer.kind === 'multi_with_other' ? answer.other_text : undefined);
    if (raw === undefined) {
      if (required.has(a.name)) return { action: 'decline' };
      continue;
    }
    const value = coerce(a.field, raw);
    if (value === undefined) return { action: 'decline' };
    content[a.name] = value;
  }
  return { action: 'accept', content };
}

function enumValues(f: Field): string[] {
  if (Array.isArray(f.enum)) return f.enum.map(String);
  if (Array.isArray(f.oneOf)) return f.oneOf.map((o) => String(o.const));
  return [];
}

/** The options a field offers besides Decline (and Cancel): yes/no, or up to 3 enum values. */
function choicesOf(f: Field): string[] {
  if (f.type === 'boolean') return ['true', 'false'];
  const values = enumValues(f);
  return values.length && values.length <= 3 ? values : [];
}

function coerce(f: Field, raw: string): string | number | boolean | undefined {
  if (f.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined;
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(raw.trim());
    if (!raw.trim() || !Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n))) return undefined;
    return n;
  }
  const values = enumValues(f);
  if (values.length && !values.includes(raw)) return undefined;
  return raw;
}
