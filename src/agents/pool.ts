import { EFFORTS } from '../config/defaults.ts';
import type { Doc } from '../config/read.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import { validationError } from '../../protocol/errors.ts';
import { capabilitiesOf, resolveModel, type ResolvedModel } from '../engine/model-resolve.ts';
import type { ThinkingRequest } from '../providers/wire/types.ts';

/** The caller's own model and effort (rule 3: always a valid `model` value). */
export const PRIMARY = 'primary';

/** What a subagent runs on. */
export interface BoundModel {
  model: ResolvedModel;
  thinking: ThinkingRequest;
}

type Section = ResolvedConfig['secondary_model'];

const poolKeys = (s: Section): string[] => Object.keys(s.models ?? {});

/** Rule 3 and 5: the Agent tool offers a `model` parameter only for a configured pool without `force`. */
export function modelParameter(c: ResolvedConfig): { choices: string[]; hints: Record<string, string> } | undefined {
  const s = c.secondary_model;
  if (s.force || (!s.default_model && !s.models)) return undefined;
  const keys = s.models ? poolKeys(s) : [s.default_model!];
  // A default_model of `primary` (the caller's model) is already the last choice.
  return { choices: [...new Set([...keys, PRIMARY])], hints: { ...(s.models ?? {}) } };
}

/**
 * Rules 2, 6 and 7: what makes session creation, resume and fork fail. Returns the
 * problems as validation fields (empty when the section is usable). Never rewrites it.
 */
export function poolProblems(c: ResolvedConfig): Array<{ field: string; message: string }> {
  const s = c.secondary_model;
  const out: Array<{ field: string; message: string }> = [];
  const f = (k: string) => `secondary_model.${k}`;
  if (s.force && !s.default_model) out.push({ field: f('force'), message: 'force requires default_model' });
  if (s.force && s.models) out.push({ field: f('force'), message: 'force cannot be combined with models' });
  if (s.models && !s.default_model) out.push({ field: f('default_model'), message: 'default_model is required when models is configured' });
  if (s.models && s.default_model && !(s.default_model in s.models)) {
    out.push({ field: f('default_model'), message: `default_model "${s.default_model}" is not a key of secondary_model.models` });
  }
  if (s.models && PRIMARY in s.models) out.push({ field: f('models.primary'), message: '"primary" is reserved and cannot be a pool key' });
  const effort = s.default_effort;
  if (effort !== undefined && effort !== 'off' && !(EFFORTS as readonly string[]).includes(effort)) {
    out.push({ field: f('default_effort'), message: `must be one of ${[...EFFORTS, 'off'].join(', ')}` });
  }
  const aliases = new Set([...poolKeys(s), ...(s.default_model ? [s.default_model] : [])]);
  aliases.delete(PRIMARY);
  for (const alias of aliases) {
    const where = s.models && alias in s.models ? f(`models.${alias}`) : f('default_model');
    const record = recordOf(c, alias);
    if (!record) {
      out.push({ field: where, message: `"${alias}" does not resolve to a configured model` });
      continue;
    }
    const efforts = record.support_efforts;
    const def = record.default_effort;
    if (typeof def === 'string' && Array.isArray(efforts) && !efforts.includes(def)) {
      out.push({ field: where, message: `default_effort "${def}" of "${alias}" is not one of its support_efforts (${efforts.join(', ')})` });
    }
  }
  return out;
}

/** Throws 40001 listing every problem of `[secondary_model]` (rule 7). */
export function assertPoolUsable(c: ResolvedConfig): void {
  const problems = poolProblems(c);
  if (problems.length) throw validationError(problems);
}

function recordOf(c: ResolvedConfig, alias: string): Doc | undefined {
  try {
    return resolveModel(c, alias).record;
  } catch {
    return undefined;
  }
}

/**
 * Rules 1, 3, 4 and 5: the model and effort of a spawn. `requested` is the call's
 * explicit `model` argument. Returns a message (a tool error) when the spawn must fail.
 */
export function bindSubagentModel(c: ResolvedConfig, caller: BoundModel, requested: string | undefined): BoundModel | { error: string } {
  const s = c.secondary_model;
  if (s.force) {
    if (requested !== undefined) return { error: `the model parameter is not accepted: [secondary_model] force pins every subagent to ${s.default_model}` };
    return s.default_model === PRIMARY ? caller : bind(c, s.default_model!);
  }
  const param = modelParameter(c);
  if (!param) {
    if (requested !== undefined && requested !== PRIMARY) return { error: 'no subagent model pool is configured; omit model (subagents use your own model)' };
    return caller;
  }
  const choice = requested ?? s.default_model!;
  if (choice === PRIMARY) return caller;
  if (!param.choices.includes(choice)) return { error: `unknown subagent model "${choice}"; choose one of: ${param.choices.join(', ')}` };
  return bind(c, choice);
}

/** A configured `[models]` alias with its effort as rule 4 binds a pool alias (a custom agent's `model`, too). */
export function bind(c: ResolvedConfig, alias: string): BoundModel | { error: string } {
  let model: ResolvedModel;
  try {
    model = resolveModel(c, alias);
  } catch (err) {
    return { error: `subagent model "${alias}" cannot be used: ${(err as Error).message}` };
  }
  return { model, thinking: boundThinking(c, model.record) };
}

/**
 * Rule 4: a bound pool alias does not inherit the caller's effort. The section's
 * `default_effort` wins; else `[thinking] enabled=false` keeps thinking off; else the
 * entry's `default_effort`, then `[thinking].effort`, then the middle of `support_efforts`.
 * A level the model does not list falls back to its `default_effort` (Part B models
 * `support_efforts`), so the wire never carries an effort the model refuses.
 */
export function boundThinking(c: ResolvedConfig, record: Doc): ThinkingRequest {
  const keep = c.thinking.keep;
  const efforts = Array.isArray(record.support_efforts) ? (record.support_efforts as string[]) : [];
  const str = (x: unknown) => (typeof x === 'string' && x ? x : undefined);
  const supported = (x: string | undefined) => (x && (!efforts.length || efforts.includes(x)) ? x : undefined);
  const fallback = str(record.default_effort) ?? efforts[Math.floor((efforts.length - 1) / 2)];
  const on = (effort: string | undefined): ThinkingRequest => (effort ? { enabled: true, effort, keep } : { enabled: true, keep });
  const caps = capabilitiesOf(record);
  const always = caps.includes('always_thinking');
  // The model's capabilities bound it, as for the main agent (resolveThinking).
  if (!always && !caps.includes('thinking')) return { enabled: false };
  const sectionEffort = str(c.secondary_model.default_effort);
  if (sectionEffort === 'off') return always ? on(fallback) : { enabled: false };
  if (sectionEffort) return on(supported(sectionEffort) ?? fallback);
  if (!c.thinking.enabled && !always) return { enabled: false };
  return on(str(record.default_effort) ?? supported(str(c.thinking.effort)) ?? fallback);
}
