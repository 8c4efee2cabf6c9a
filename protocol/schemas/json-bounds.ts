import * as v from 'valibot';
import { validationError } from '../errors.ts';
import { jsonBoundsViolation, type JsonBounds } from '../json-bounds.ts';

export type { JsonBounds };

/**
 * A valibot validation action enforcing `bounds`; its issue carries the
 * crossed limit as `requirement` (so 40001 details name the limit).
 */
export function jsonBounds<T>(bounds: JsonBounds): v.GenericValidation<T, T, v.BaseIssue<T>> {
  const action = {
    kind: 'validation' as const,
    type: 'json_bounds',
    reference: jsonBounds,
    async: false as const,
    expects: null,
    requirement: bounds as unknown,
    message: undefined,
    '~run'(dataset: v.OutputDataset<T, v.BaseIssue<unknown>>, config: v.Config<v.BaseIssue<T>>) {
      if (dataset.typed) {
        const bad = jsonBoundsViolation(dataset.value, bounds);
        if (bad) {
          const other = { expected: `<= ${bad.limit}`, received: String(bad.actual), message: bad.message };
          v._addIssue({ ...action, requirement: bad.limit } as any, 'JSON value', dataset as any, config as any, other as any);
        }
      }
      return dataset;
    },
  };
  return action as unknown as v.GenericValidation<T, T, v.BaseIssue<T>>;
}

/** 40001 naming `field` and the crossed limit when `value` breaks `bounds` (a merged value the schema could not see whole). */
export function assertJsonBounds(value: unknown, bounds: JsonBounds, field: string, note = ''): void {
  const bad = jsonBoundsViolation(value, bounds);
  if (bad) throw validationError([{ field, message: `${bad.message}${note}`, limit: bad.limit }]);
}
