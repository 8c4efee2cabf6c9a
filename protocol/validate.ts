import * as v from 'valibot';
import { validationError, type FieldIssue } from './errors.ts';

type AnySchema = v.GenericSchema<unknown, unknown>;

function issuePath(issue: v.BaseIssue<unknown>, prefix: string): string {
  const keys = (issue.path ?? []).map((p) => String(p.key));
  const joined = keys.length ? keys.join('.') : '';
  if (prefix && joined) return `${prefix}.${joined}`;
  return joined || prefix || '(root)';
}

/** The number a size or range check compared against (maxLength, maxValue, JSON bounds, ...). */
function limitOf(issue: v.BaseIssue<unknown>): number | undefined {
  const bounded = /^(max|min)_/.test(issue.type) || issue.type === 'json_bounds';
  return bounded && typeof issue.requirement === 'number' ? issue.requirement : undefined;
}

/** Flattens valibot issues (including nested unions) into one entry per field, with the limit a bound names. */
export function toFieldIssues(issues: readonly v.BaseIssue<unknown>[], prefix = ''): FieldIssue[] {
  const out: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const field = issuePath(issue, prefix);
    if (seen.has(field)) continue;
    seen.add(field);
    const limit = limitOf(issue);
    out.push(limit === undefined ? { field, message: issue.message } : { field, message: issue.message, limit });
  }
  return out;
}

/** Parses `input` with `schema`; throws a 40001 ApiError listing each failing field. */
export function parseOrThrow<S extends AnySchema>(schema: S, input: unknown, prefix = ''): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (!result.success) throw validationError(toFieldIssues(result.issues, prefix));
  return result.output as v.InferOutput<S>;
}
