import { deref, type Json } from './schema-walk.ts';

/** The suite's seeded PRNG (mulberry32: a run is repeatable from its seed), shared with the benches. */
export { prng } from '../../fixtures/prng.ts';

export const pick = <T>(rng: () => number, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];

/** Where generated values point: real fixtures, so requests reach past validation. */
export interface FuzzContext {
  sessionId: string;
  workspaceId: string;
  /** The fixture workspace root (absolute). */
  root: string;
  /** What `path` fields get: relative for session file routes, absolute (inside root) for host routes. */
  path: string;
}

const ULID_CHARS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ulidish = (prefix: string) => prefix + Array.from({ length: 26 }, (_, i) => ULID_CHARS[(i * 7) % 32]).join('');

/** A valid-looking string for a named field: fixture paths for paths, loopback URLs (never the network) for URLs. */
function stringFor(name: string, s: Json, ctx: FuzzContext): string {
  if (s.pattern === '^file_[0-9A-HJKMNP-TV-Z]{26}$' || /^file_id$/.test(name)) return ulidish('file_');
  if (typeof s.pattern === 'string' && s.pattern.includes('A-Za-z0-9._-')) return 'main';
  if (typeof s.pattern === 'string' && s.pattern.includes('\\d+')) return '0';
  if (name === 'runtime_id') return 'local';
  if (name === 'agent_id') return 'main';
  if (/(^|_)url$/.test(name)) return 'http://127.0.0.1:9/fuzz';
  if (name === 'session_id') return ctx.sessionId;
  if (name === 'workspace_id') return ctx.workspaceId;
  if (['root', 'workspace', 'cwd'].includes(name)) return ctx.root;
  if (name === 'path' || name === 'paths') return ctx.path;
  if (name === 'key') return 'fuzz-key';
  if (name === 'type') return 'chat_compat';
  const min = typeof s.minLength === 'number' ? s.minLength : 1;
  return 'x'.repeat(Math.max(1, min));
}

/** A value the schema accepts (as far as this generator can tell): required properties only. */
export function sample(schema: Json, root: Json, ctx: FuzzContext, name = '', depth = 0): unknown {
  const s = deref(schema, root);
  if (depth > 8) return null;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (Array.isArray(alt)) {
    const nonNull = alt.find((a: Json) => deref(a, root).type !== 'null') ?? alt[0];
    return sample(nonNull, root, ctx, name, depth + 1);
  }
  if (Array.isArray(s.allOf) && s.allOf.length) return sample(s.allOf[0], root, ctx, name, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return s.format === 'binary' ? undefined : stringFor(name, s, ctx);
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? Math.max(s.minimum, Math.min(1, s.maximum ?? 1)) : 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: n }, () => sample(s.items ?? {}, root, ctx, name, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) {
        const v = sample(s.properties?.[key] ?? {}, root, ctx, key, depth + 1);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    default:
      return {};
  }
}

/** The concrete JSON type a schema demands, when it demands exactly one (wrong-type mutations must then fail). */
export function soleType(schema: Json, root: Json): string | undefined {
  const s = deref(schema, root);
  if ('const' in s || Array.isArray(s.enum) || s.anyOf || s.oneOf || s.allOf) return undefined;
  return typeof s.type === 'string' ? s.type : undefined;
}

/** A value of another JSON type than `type`. */
export function otherType(type: string | undefined, rng: () => number): unknown {
  const all: Array<[string, unknown]> = [['string', 'str'], ['number', 12.5], ['boolean', true], ['object', { o: 1 }], ['array', [1, 'a']], ['null', null]];
  const others = all.filter(([t]) => t !== type && !(type === 'integer' && t === 'number'));
  return pick(rng, others)[1];
}

/** JSON text of an object nested `n` levels deep. */
export const deepJson = (n: number) => '{"d":'.repeat(n) + '0' + '}'.repeat(n);

/** Strings that have broken servers: traversal, NUL, control and format characters, odd Unicode, lone surrogates. */
export const NASTY_STRINGS = [
  '../../../../../../etc/passwd', '..\\..\\..\\windows\\win.ini', '%2e%2e%2f%2e%2e%2fetc', 'a/../../b', '/nonexistent-svc-fuzz/../etc/passwd',
  'a\u0000b', '\u0000', ' ', '', '\r\n\t', '\u202e\u200b\ufeff', '💥'.repeat(50), '\ud800', 'x\udfffy', '${HOME}', '`id`', '%s%n%x',
  '<script>alert(1)</script>', "' OR 1=1 --", '__proto__', 'constructor', 'C:\\Windows', '~', '~/x', '/', '.', ':', '*', '**/*',
];

/** Numbers that have broken servers. */
export const NASTY_NUMBERS: unknown[] = [-1, 0, 1.5, -0.000001, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, '1', '', true];

/** Values for path parameters (URL-encoded as sent). */
export const ODD_PATH_PARAMS = [
  '..', '.', '%2e%2e', '%2e%2e%2f%2e%2e', '%00', 'a%00b', '%ff%fe', '%', '%E4%BC%9A%E8%AF%9D', '%F0%9F%92%A5', 'a%2Fb', '%20',
  'x'.repeat(5000), '__proto__', 'constructor', 'session_%00', ':fork', 'a:b:c', '%3A', '%5C..%5C', 'null', 'undefined', '-1', '0',
];
