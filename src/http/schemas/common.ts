import * as v from 'valibot';

/** Query-string boolean: `true`/`false` (also `1`/`0`). */
export const QueryBool = v.pipe(
  v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
  v.transform((s) => s === 'true' || s === '1'),
);

/** Query-string integer within [min, max]. */
export function queryInt(min: number, max: number) {
  return v.pipe(
    v.string(),
    v.regex(/^-?\d+$/, 'must be an integer'),
    v.transform(Number),
    v.minValue(min, `must be >= ${min}`),
    v.maxValue(max, `must be <= ${max}`),
  );
}

/** A repeatable query parameter, normalised to an array. */
export function queryList<T extends v.GenericSchema<string, unknown>>(item: T) {
  return v.pipe(
    v.union([v.string(), v.array(v.string())]),
    v.transform((x) => (Array.isArray(x) ? x : [x])),
    v.array(item),
  );
}

export const NonEmptyString = v.pipe(v.string(), v.minLength(1, 'must not be empty'));

/** Cursor pagination response. */
export function Page<T extends v.GenericSchema>(item: T) {
  return v.object({ items: v.array(item), has_more: v.boolean() });
}

export const Metadata = v.record(v.string(), v.unknown());

export const PermissionMode = v.picklist(['manual', 'yolo', 'auto']);
