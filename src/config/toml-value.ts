import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'smol-toml';
import { isTable, type Doc } from './read.ts';

/** A key as TOML writes it: bare when it can be, else a basic string. */
export function formatKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : scalarText(key);
}

/** A dotted key path (`a."b.c".d`). */
export function formatPath(path: readonly (string | number)[]): string {
  return path.map((k) => formatKey(String(k))).join('.');
}

/** A scalar (string, number, boolean, date) as smol-toml writes it, so escapes and number forms follow the spec. */
function scalarText(value: unknown): string {
  const line = stringify({ v: value });
  return line.slice('v = '.length, line.endsWith('\n') ? -1 : undefined);
}

/** A value written inline: scalars, arrays `[ a, b ]` and inline tables `{ k = v }`, nested as deep as they go. */
export function inlineValue(value: unknown): string {
  if (Array.isArray(value)) return value.length ? `[ ${value.map(inlineValue).join(', ')} ]` : '[]';
  if (isTable(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return entries.length ? `{ ${entries.map(([k, v]) => `${formatKey(k)} = ${inlineValue(v)}`).join(', ')} }` : '{}';
  }
  return scalarText(value);
}

/** A non-empty array whose every element is a table: written as `[[...]]` sections when it has a section of its own. */
export function isTableArray(value: unknown): value is Doc[] {
  return Array.isArray(value) && value.length > 0 && value.every(isTable);
}

/**
 * The document as the comparison sees it: undefined members dropped and empty tables
 * dropped (a table emptied by an edit may leave no trace in the file, and none is needed:
 * every reader treats a missing table as an empty one).
 */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (!isTable(value)) return value instanceof Date ? value.toISOString() : value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const n = normalized(v);
    if (isTable(n) && !Object.keys(n).length) continue;
    out[k] = n;
  }
  return out;
}

/** Whether two parsed documents (or values) hold the same data, as `normalized` sees it. */
export function sameData(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(normalized(a), normalized(b));
}
