import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Answer } from '../../protocol/events/questions.ts';
import type { AskRequest, QuestionService } from '../questions/service.ts';

type FormParams = Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
type Choice = { const?: unknown; title?: string };
type Field = {
  type?: string; title?: string; description?: string; enum?: unknown[]; enumNames?: string[]; oneOf?: Choice[]; default?: unknown;
  minimum?: number; maximum?: number; items?: { enum?: unknown[]; anyOf?: Choice[]; oneOf?: Choice[] };
};
type Value = string | number | boolean | string[];

/** The call an elicitation belongs to (the MCP tool call in flight on that server). */
export interface ElicitSite {
  sessionId: string;
  agentId: string;
  turnId?: string;
  toolCallId: string;
}

const DECLINE = 'Decline';
const CANCEL = 'Cancel';
/** Questions of one question item (Core "Question item": 1 to 4). */
const PER_PAGE = 4;

/** One requested field as a question: its choices (label -> value) when it has few, else typed. */
interface Asked { name: string; field: Field; choices: Array<{ label: string; value: string }>; multi: boolean }

/**
 * An elicitation request (form mode) as questions the user answers through the questions routes
 * (docs/mcp.md "Elicitation"): one question per requested field, in question items of up to 4 asked
 * one after the other; choices for booleans and enums of up to 3 values (a multi-select for arrays of
 * them), typed text (`other`) for the rest, and `Decline` / `Cancel` options on every question. A
 * skipped field takes its default; a dismissal, a skipped required field without default or a value
 * that does not fit declines.
 */
export async function elicitThroughQuestions(questions: QuestionService, server: string, site: ElicitSite, params: FormParams, signal: AbortSignal): Promise<ElicitResult> {
  const asked: Asked[] = Object.entries((params.requestedSchema.properties ?? {}) as Record<string, Field>).map(([name, field]) => ({ name, field, ...choicesOf(field) }));
  if (!asked.length) return confirm(questions, server, site, params, signal);
  const required = new Set((params.requestedSchema.required ?? []) as string[]);
  const content: Record<string, Value> = {};
  const pages = Math.ceil(asked.length / PER_PAGE);
  for (let p = 0; p < pages; p++) {
    const page = asked.slice(p * PER_PAGE, (p + 1) * PER_PAGE);
    const entries: AskRequest['questions'] = page.map((a, i) => ({
      question: `${p === 0 && i === 0 ? `${server} asks: ${params.message}\n` : ''}${a.field.title ?? a.name}${a.field.description ? ` (${a.field.description})` : ''}`,
      header: `MCP ${server}${pages > 1 ? ` (${p + 1}/${pages})` : ''}`.slice(0, 100),
      options: [...a.choices.map((c) => ({ label: c.label })), { label: DECLINE, description: 'decline the request' }, ...(a.choices.length < 2 ? [{ label: CANCEL, description: 'cancel the request' }] : [])],
      ...(a.multi ? { multi_select: true } : {}), ...(a.choices.length ? {} : { allow_other: true }),
    }));
    const outcome = await questions.ask(site.sessionId, { agentId: site.agentId, ...(site.turnId ? { turnId: site.turnId } : {}), toolCallId: site.toolCallId, questions: entries }, signal);
    if (outcome.kind !== 'answered') return { action: 'decline' };
    const answers = outcome.body.answers as Record<string, Answer>;
    for (const [i, a] of page.entries()) {
      const labels = labelsOf(outcome.item.questions[i]?.options ?? [], answers[`q_${i}`] ?? { kind: 'skipped' });
      if (labels.chosen.includes(DECLINE)) return { action: 'decline' };
      if (labels.chosen.includes(CANCEL)) return { action: 'cancel' };
      const value = valueOf(a, labels);
      if (value === 'invalid') return { action: 'decline' };
      if (value !== undefined) content[a.name] = value;
      else if (a.field.default !== undefined) content[a.name] = a.field.default as Value;
      else if (required.has(a.name)) return { action: 'decline' };
    }
  }
  return { action: 'accept', content };
}

/** A request without fields: Accept, Decline or Cancel. */
async function confirm(questions: QuestionService, server: string, site: ElicitSite, params: FormParams, signal: AbortSignal): Promise<ElicitResult> {
  const outcome = await questions.ask(site.sessionId, {
    agentId: site.agentId, ...(site.turnId ? { turnId: site.turnId } : {}), toolCallId: site.toolCallId,
    questions: [{ question: `${server} asks: ${params.message}`, header: `MCP ${server}`.slice(0, 100), options: [{ label: 'Accept' }, { label: DECLINE }, { label: CANCEL }] }],
  }, signal);
  if (outcome.kind !== 'answered') return { action: 'decline' };
  const { chosen } = labelsOf(outcome.item.questions[0]?.options ?? [], (outcome.body.answers as Record<string, Answer>).q_0 ?? { kind: 'skipped' });
  return chosen.includes('Accept') ? { action: 'accept', content: {} } : { action: chosen.includes(CANCEL) ? 'cancel' : 'decline' };
}

function labelsOf(options: Array<{ id: string; label: string }>, a: Answer): { chosen: string[]; text?: string } {
  const label = (id: string) => options.find((o) => o.id === id)?.label;
  if (a.kind === 'single') return { chosen: [label(a.option_id)].filter((l): l is string => l !== undefined) };
  if (a.kind === 'multi') return { chosen: a.option_ids.map(label).filter((l): l is string => l !== undefined) };
  if (a.kind === 'multi_with_other') return { chosen: a.option_ids.map(label).filter((l): l is string => l !== undefined), text: a.other_text };
  if (a.kind === 'other') return { chosen: [], text: a.text };
  return { chosen: [] };
}

/** The values a field may take, with their labels (enum, `enumNames`, titled `oneOf`; array items likewise). */
function valuesOf(f: Field): Array<{ label: string; value: string }> {
  const titled = (list: Choice[]) => list.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }));
  if (f.type === 'array') {
    const it = f.items ?? {};
    if (Array.isArray(it.enum)) return it.enum.map((x) => ({ value: String(x), label: String(x) }));
    return titled(it.anyOf ?? it.oneOf ?? []);
  }
  if (Array.isArray(f.enum)) return f.enum.map((x, i) => ({ value: String(x), label: f.enumNames?.[i] ?? String(x) }));
  return titled(f.oneOf ?? []);
}

/** The options a field offers besides Decline (and Cancel): true/false, or up to 3 values. */
function choicesOf(f: Field): { choices: Array<{ label: string; value: string }>; multi: boolean } {
  if (f.type === 'boolean') return { choices: [{ label: 'true', value: 'true' }, { label: 'false', value: 'false' }], multi: false };
  const values = valuesOf(f);
  const distinct = new Set(values.map((v) => v.label)).size === values.length;
  return values.length && values.length <= 3 && distinct ? { choices: values, multi: f.type === 'array' } : { choices: [], multi: false };
}

/** The answer as the field's value: undefined when skipped, `invalid` when it does not fit. */
function valueOf(a: Asked, answer: { chosen: string[]; text?: string }): Value | undefined | 'invalid' {
  const picked = answer.chosen.map((l) => a.choices.find((c) => c.label === l)?.value).filter((v): v is string => v !== undefined);
  const typed = answer.text?.trim() ? answer.text : undefined;
  if (a.field.type === 'array') {
    const raw = [...picked, ...(typed ? typed.split(',').map((x) => x.trim()).filter(Boolean) : [])];
    if (!raw.length) return undefined;
    const values = valuesOf(a.field);
    const mapped = raw.map((x) => values.find((v) => v.value === x || v.label === x)?.value);
    return values.length && mapped.some((x) => x === undefined) ? 'invalid' : mapped.map((x, i) => x ?? raw[i]!);
  }
  const raw = picked[0] ?? typed;
  if (raw === undefined) return undefined;
  return coerce(a.field, raw) ?? 'invalid';
}

function coerce(f: Field, raw: string): string | number | boolean | undefined {
  if (f.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined;
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(raw.trim());
    if (!raw.trim() || !Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n))) return undefined;
    if ((f.minimum !== undefined && n < f.minimum) || (f.maximum !== undefined && n > f.maximum)) return undefined;
    return n;
  }
  const values = valuesOf(f);
  if (!values.length) return raw;
  return values.find((v) => v.value === raw || v.label === raw)?.value;
}
