/** Bounds of a free-form JSON value. */
export interface JsonBounds {
  /** Nesting depth: `{}` and `[]` are 1, `{"a":{}}` is 2. */
  depth: number;
  /** Size of its JSON text in UTF-8 bytes. */
  bytes: number;
  /** Object members plus array items, at every level. */
  entries: number;
}

export interface JsonBoundsViolation {
  bound: keyof JsonBounds;
  limit: number;
  /** What was measured when the bound was crossed (a lower bound of the real figure). */
  actual: number;
  message: string;
}

const MESSAGES: Record<keyof JsonBounds, (limit: number) => string> = {
  depth: (n) => `must nest at most ${n} levels deep`,
  bytes: (n) => `must be at most ${n} bytes as JSON`,
  entries: (n) => `must hold at most ${n} entries (object members and array items, all levels)`,
};

function violation(bound: keyof JsonBounds, limit: number, actual: number): JsonBoundsViolation {
  return { bound, limit, actual, message: MESSAGES[bound](limit) };
}

/** UTF-8 bytes of a string's JSON form, or `over` as soon as that is certain. */
function stringBytes(s: string, budget: number): number {
  // The JSON form is never shorter than the string itself, plus its quotes.
  if (s.length + 2 > budget) return s.length + 2;
  return utf8Bytes(JSON.stringify(s));
}

/**
 * UTF-8 length of a well-formed string (JSON.stringify escapes lone surrogates), as Buffer.byteLength counts it;
 * written out so protocol/ needs no Node global (web/ type-checks against it without Node's types).
 */
function utf8Bytes(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) i++, n += 2; // a pair: 2 units, 4 bytes
    else n += 2;
  }
  return n;
}

/**
 * The first bound `value` crosses, or null. Iterative (a value nested 100,000
 * levels deep costs 33 steps, not a stack overflow) and stops at the first
 * crossing, so its cost is linear in the part of the value it had to read.
 */
export function jsonBoundsViolation(value: unknown, b: JsonBounds): JsonBoundsViolation | null {
  let bytes = 0;
  let entries = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [x, depth] = stack.pop()!;
    if (typeof x === 'string') bytes += stringBytes(x, b.bytes - bytes);
    else if (typeof x === 'number') bytes += Number.isFinite(x) ? String(x).length : 4;
    else if (typeof x === 'boolean') bytes += x ? 4 : 5;
    else if (x === null) bytes += 4;
    else if (typeof x === 'object') {
      if (depth > b.depth) return violation('depth', b.depth, depth);
      if (Array.isArray(x)) {
        entries += x.length;
        if (entries > b.entries) return violation('entries', b.entries, entries);
        bytes += 2 + Math.max(0, x.length - 1);
        for (let i = x.length - 1; i >= 0; i--) stack.push([x[i], depth + 1]);
      } else {
        const keys = Object.keys(x);
        entries += keys.length;
        if (entries > b.entries) return violation('entries', b.entries, entries);
        bytes += 2 + Math.max(0, keys.length - 1);
        for (const k of keys) {
          bytes += stringBytes(k, b.bytes - bytes) + 1;
          stack.push([(x as Record<string, unknown>)[k], depth + 1]);
        }
      }
    }
    if (bytes > b.bytes) return violation('bytes', b.bytes, bytes);
  }
  return null;
}
