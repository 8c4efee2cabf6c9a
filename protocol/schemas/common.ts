import * as v from 'valibot';
import { jsonBounds, type JsonBounds } from './json-bounds.ts';

/**
 * The bounds every request value is held to: each string, number, array and
 * free-form JSON value of a request has one (docs/http-conventions.md "Limits").
 * They are in the served /openapi.json (maxLength, maximum, maxItems,
 * maxProperties, and `x-max-bytes` / `x-max-depth` / `x-max-entries` where JSON
 * Schema has no keyword); a value over one is 40001 with `details` naming the
 * field (dotted path) and the `limit`.
 */
export const LIMITS = {
  /** File-system paths, in UTF-8 bytes (Linux PATH_MAX). */
  pathBytes: 4096,
  /** Fuzzy queries (fs:search, fs:suggest): no path is longer, so no longer query can match. */
  queryChars: 4096,
  /** grep patterns (also passed to ripgrep as an argument). */
  patternChars: 4096,
  /** Globs (include_globs / exclude_globs entries). */
  globChars: 1024,
  /** Globs per list. */
  globs: 100,
  /** Ids, names, keys, aliases, enum-like words. */
  idChars: 256,
  /** Session titles. */
  titleChars: 1000,
  /** One-line values: URLs, API keys, header values, labels, reasons, commands. */
  lineChars: 8192,
  /** Free text typed by a user: feedback, notes, instructions, skill args, answers. */
  textChars: 1024 * 1024,
  /** One text part of a prompt (a pasted file); media data up to the body limit. */
  promptTextChars: 4 * 1024 * 1024,
  /** Entries of an array the spec gives no range for. */
  items: 1000,
  /** Free-form JSON values (metadata, agent_config, config tables). */
  json: { depth: 32, bytes: 64 * 1024, entries: 1000 } satisfies JsonBounds,
  /** Tool inputs and results inside a prompt's content parts. */
  toolJson: { depth: 32, bytes: 1024 * 1024, entries: 10_000 } satisfies JsonBounds,
};

/**
 * An object schema that refuses arrays. valibot's object and record schemas take
 * an array for an object (a record turns `[1]` into `{"0": 1}`); a body is
 * stored as given, so an array where an object belongs is 40001. The copy keeps
 * the schema's type and entries, so /openapi.json documents it unchanged.
 */
export function objectOnly<S extends v.GenericSchema>(schema: S): S {
  const run = schema['~run'].bind(schema);
  const copy = {
    ...schema,
    '~run'(dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) {
      if (!Array.isArray(dataset.value)) return run(dataset, config);
      const context = { kind: 'schema', type: schema.type, reference: objectOnly, expects: 'Object', message: 'must be an object, not an array' };
      v._addIssue(context as never, 'type', dataset as never, config as never, { received: 'Array' } as never);
      return dataset;
    },
  };
  return copy as unknown as S;
}

/** Query-string boolean: `true`/`false` (also `1`/`0`). */
export const QueryBool = v.pipe(
  v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
  v.transform((s) => s === 'true' || s === '1'),
);

/** Query-string integer within [min, max]. */
export function queryInt(min: number, max: number) {
  return v.pipe(
    v.string(),
    v.maxLength(20, 'must be an integer'),
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
    v.maxLength(LIMITS.items, `at most ${LIMITS.items} values`),
  );
}

/** A lone UTF-16 surrogate: text no UTF-8 store or file name can hold as given. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Well-formed Unicode: for strings that become keys, ids or file names (JSON `"\ud800"` decodes to a lone surrogate). */
export const WellFormed = v.check((s: string) => !LONE_SURROGATE.test(s), 'must be well-formed Unicode (no lone surrogates)');

/** A string of 1 to `max` characters (JavaScript string length). */
export function boundedString(max: number, what = 'characters') {
  return v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} ${what}`));
}

/** A string of 0 to `max` characters. */
export function maxString(max: number) {
  return v.pipe(v.string('must be a string'), v.maxLength(max, `must be at most ${max} characters`));
}

/** An id, name, key or alias: 1-256 characters of well-formed Unicode. */
export const Id = v.pipe(boundedString(LIMITS.idChars), WellFormed);
/** A one-line value (URL, key, label): 0-8192 characters. */
export const Line = maxString(LIMITS.lineChars);
/** Free text typed by a user: 0-1 MiB characters. */
export const Text = maxString(LIMITS.textChars);

/** An agent id (`main`, `agent_…`, `btw_…`): 1-256 letters, digits, `.`, `_`, `-`. */
export const AgentId = v.pipe(
  v.string('must be a string'),
  v.maxLength(LIMITS.idChars, `must be at most ${LIMITS.idChars} characters`),
  v.regex(/^[A-Za-z0-9._-]+$/, 'must be a plain id of letters, digits, ".", "_", "-"'),
);

/** Session titles: 1-1000 characters (the spec sets no maximum; this is ours). */
export const Title = boundedString(LIMITS.titleChars);

/**
 * A file-system path: 1-4096 bytes in UTF-8, no NUL byte. Refused before any
 * file-system call (a longer one is ENAMETOOLONG there).
 */
export const PathString = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(LIMITS.pathBytes, `must be at most ${LIMITS.pathBytes} bytes (UTF-8)`),
  v.maxBytes(LIMITS.pathBytes, `must be at most ${LIMITS.pathBytes} bytes (UTF-8)`),
  v.check((s) => !s.includes('\0'), 'must not contain NUL bytes'),
  WellFormed,
  v.metadata({ 'x-max-bytes': LIMITS.pathBytes }),
);

/** A path that may be empty (the root): 0-4096 bytes in UTF-8. */
export const PathOrEmpty = v.pipe(
  v.string('must be a string'),
  v.maxLength(LIMITS.pathBytes, `must be at most ${LIMITS.pathBytes} bytes (UTF-8)`),
  v.maxBytes(LIMITS.pathBytes, `must be at most ${LIMITS.pathBytes} bytes (UTF-8)`),
  WellFormed,
  v.metadata({ 'x-max-bytes': LIMITS.pathBytes }),
);

/** A fuzzy query: 0-4096 characters. */
export const FuzzyQueryString = maxString(LIMITS.queryChars);

/** A glob list: at most 100 globs of 1-1024 characters. */
export const GlobList = v.pipe(
  v.array(boundedString(LIMITS.globChars), 'must be an array of strings'),
  v.maxLength(LIMITS.globs, `at most ${LIMITS.globs} globs`),
);

/** An integer in [min, max] (both within the safe integer range). */
export function intIn(min: number, max: number) {
  return v.pipe(
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(min, `must be >= ${min}`),
    v.maxValue(max, `must be <= ${max}`),
  );
}

/** A non-negative safe integer (offsets, seqs, byte counts). */
export const SafeUint = intIn(0, Number.MAX_SAFE_INTEGER);

/** An array of at most `max` entries (default 1000). */
export function boundedArray<T extends v.GenericSchema>(item: T, max: number = LIMITS.items) {
  return v.pipe(v.array(item), v.maxLength(max, `at most ${max} entries`));
}

/**
 * A free-form JSON value held to `bounds`: nesting depth, serialised size and
 * total entries (object members plus array items), checked without recursion.
 */
export function boundedJson<S extends v.GenericSchema>(schema: S, bounds: JsonBounds = LIMITS.json) {
  return v.pipe(
    schema,
    jsonBounds<v.InferOutput<S>>(bounds),
    v.metadata({ 'x-max-depth': bounds.depth, 'x-max-bytes': bounds.bytes, 'x-max-entries': bounds.entries }),
  );
}

/** Free-form object (metadata, agent_config): string keys, bounded JSON values. */
export const FreeObject = boundedJson(objectOnly(v.record(v.string(), v.unknown())));

/** Any JSON value, bounded (tool inputs and results). */
export const FreeJson = (bounds: JsonBounds = LIMITS.json) => boundedJson(v.unknown(), bounds);

/** Cursor pagination response. */
export function Page<T extends v.GenericSchema>(item: T) {
  return v.object({ items: v.array(item), has_more: v.boolean(), unreadable: v.optional(Unreadable) });
}

/** List entries left out because their stored record cannot be read (absent when none). */
export const Unreadable = v.pipe(
  v.array(v.object({ id: v.nullable(v.string()), code: v.number(), msg: v.string() })),
  v.description('stored records that could not be read, left out of the list (code 50003); absent when none'),
);

export const Metadata = FreeObject;

export const PermissionMode = v.picklist(['manual', 'yolo', 'auto']);
