import { bodySchema, deref, type Json, type Operation } from './schema-walk.ts';
import {
  NASTY_NUMBERS, NASTY_STRINGS, ODD_PATH_PARAMS, deepJson, otherType, pick, sample, soleType, type FuzzContext,
} from './fuzz-values.ts';

/** One malformed (or borderline) request. */
export interface FuzzCase {
  label: string;
  method: string;
  /** Path and query, encoded as sent. */
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Certainly invalid: the answer must carry a 4xxxx code. */
  mustFail?: boolean;
}

type Key = string | number;
interface Field { path: Key[]; schema: Json; required: boolean }

const DEEP = 10_000;
/** Size of the `huge` strings (SVC_FUZZ_HUGE; 1 MiB by default). */
const HUGE = Number(process.env.SVC_FUZZ_HUGE ?? 1024 * 1024);
const MARK = '__fuzz_mark_7f3a__';

/** Properties of a body schema down to `depth` levels (array items through index 0), following the variant `sample` picks. */
function fields(schema: Json, root: Json, path: Key[] = [], depth = 0, out: Field[] = []): Field[] {
  const s = deref(schema, root);
  if (depth > 3 || !s) return out;
  const alt = s.anyOf ?? s.oneOf;
  if (Array.isArray(alt)) {
    const first = alt.find((a: Json) => deref(a, root).type !== 'null') ?? alt[0];
    return fields(first, root, path, depth, out);
  }
  if (s.type === 'array' && s.items) return fields(s.items, root, [...path, 0], depth + 1, out);
  for (const [k, sub] of Object.entries<Json>(s.properties ?? {})) {
    out.push({ path: [...path, k], schema: deref(sub, root), required: (s.required ?? []).includes(k) });
    fields(sub, root, [...path, k], depth + 1, out);
  }
  return out;
}

/** Sets `value` at `path` in a copy of `base`, creating containers (arrays get their first item) on the way. */
function setAt(base: unknown, path: Key[], value: unknown, remove = false): unknown {
  const copy = structuredClone(base ?? {}) as Record<Key, unknown>;
  let cur: Record<Key, unknown> = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    if (cur[k] === null || typeof cur[k] !== 'object') cur[k] = typeof path[i + 1] === 'number' ? [] : {};
    cur = cur[k] as Record<Key, unknown>;
  }
  const last = path[path.length - 1];
  if (remove) delete cur[last];
  else cur[last] = value;
  return copy;
}

function outOfRange(s: Json, x: unknown): boolean {
  if (typeof x !== 'number') return false;
  if (s.type === 'integer' && !Number.isInteger(x)) return true;
  return (typeof s.maximum === 'number' && x > s.maximum) || (typeof s.minimum === 'number' && x < s.minimum);
}

export interface Request { method: string; path: string; params: Record<string, string>; query: Record<string, string>; body?: unknown }

/** The URL of a request: `{name}` filled (a `{path}` slot spans segments), query appended. */
export function urlOf(r: Request, rawQuery = ''): string {
  const path = r.path.replace(/\{([a-z_]+)\}/gi, (_, name: string) => {
    const v = r.params[name] ?? 'x';
    return name === 'path' ? v.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(v);
  });
  const q = new URLSearchParams(r.query).toString();
  const all = [q, rawQuery].filter(Boolean).join('&');
  return all ? `${path}?${all}` : path;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/**
 * Up to `count` cases for one operation, chosen with `rng` from every applicable
 * mutation: body shape and syntax, wrong types, missing and extra fields,
 * `__proto__`, huge and deep values, invalid UTF-8, NUL, traversal and other
 * nasty strings, out-of-range numbers, odd path parameters, bad query values
 * and content types.
 */
export function casesFor(o: Operation, ctx: FuzzContext, rng: () => number, count: number): FuzzCase[] {
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  const queryParams: Json[] = [];
  for (const p of o.op.parameters ?? []) {
    if (p.in === 'path') params[p.name] = String(sample(p.schema ?? {}, p.schema ?? {}, ctx, p.name));
    if (p.in === 'query') {
      queryParams.push(p);
      if (p.required) query[p.name] = String(sample(p.schema ?? {}, p.schema ?? {}, ctx, p.name));
    }
  }
  const schema = bodySchema(o.op);
  const base = schema ? sample(schema, schema, ctx) : undefined;
  const req: Request = { method: o.method, path: o.path, params, query, body: base };
  const make = (label: string, r: Partial<Request> & { text?: string | Buffer; headers?: Record<string, string>; rawQuery?: string; mustFail?: boolean }): FuzzCase => {
    const full = { ...req, ...r, params: { ...params, ...r.params }, query: r.query ?? query };
    const body = r.text ?? (full.body === undefined ? (o.method === 'GET' ? undefined : '{}') : JSON.stringify(full.body));
    return { label, method: full.method, url: urlOf(full, r.rawQuery), headers: r.headers ?? (body === undefined ? {} : JSON_HEADERS), body, mustFail: r.mustFail };
  };
  /** The body with `path` set to a marker, the marker then replaced by raw JSON text. */
  const splice = (path: Key[], raw: string) => JSON.stringify(setAt(base, path, MARK)).replace(`"${MARK}"`, raw);

  const gens: Array<() => FuzzCase | undefined> = [];
  gens.push(() => make('baseline', {}));
  for (const name of Object.keys(params)) {
    gens.push(() => {
      const odd = pick(rng, ODD_PATH_PARAMS);
      // Sent as is: these are already URL-encoded, some deliberately invalid.
      const url = urlOf({ ...req, params: { ...params, [name]: '\u0000' } }).replace(encodeURIComponent('\u0000'), odd);
      return { ...make(`path param ${name}=${odd.slice(0, 20)}`, {}), url };
    });
  }
  for (const p of queryParams) {
    if (p.required) gens.push(() => make(`query missing ${p.name}`, { query: Object.fromEntries(Object.entries(query).filter(([k]) => k !== p.name)), mustFail: true }));
    gens.push(() => make(`query ${p.name} nasty`, { query: { ...query, [p.name]: pick(rng, NASTY_STRINGS) } }));
    gens.push(() => make(`query ${p.name} huge`, { query: { ...query, [p.name]: 'q'.repeat(8000) } }));
    gens.push(() => make(`query ${p.name} invalid percent-encoding`, { rawQuery: `${encodeURIComponent(p.name)}=%ff%fe%` }));
    gens.push(() => make(`query ${p.name} repeated`, { rawQuery: `${encodeURIComponent(p.name)}=1&${encodeURIComponent(p.name)}=2` }));
  }
  gens.push(() => make('query unknown and __proto__', { rawQuery: '__proto__[x]=1&constructor[prototype][y]=1&unknown=1' }));
  if (o.method !== 'GET') {
    gens.push(() => make('body not an object', { text: pick(rng, ['[]', '[1,2]', '"str"', '1', 'true']), mustFail: schema?.type === 'object' }));
    gens.push(() => make('malformed JSON', { text: pick(rng, ['{"a":', '{', '{"a":1,}', "{'a':1}", '\u0000', '{"a":1}}', '{"a" 1}']), mustFail: schema !== undefined }));
    gens.push(() => make('top-level nesting 100,000 deep', { text: '['.repeat(100_000) + ']'.repeat(100_000), mustFail: schema?.type === 'object' }));
    gens.push(() => make('invalid UTF-8 bytes', { text: Buffer.concat([Buffer.from('{"fuzz":"a'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('b"}')]) }));
    gens.push(() => make('__proto__ and constructor keys', { text: JSON.stringify(base ?? {}).replace(/^\{/, '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},').replace(',}', '}') }));
    gens.push(() => make('extra field', { body: { ...(base as object), unexpected_field: { a: 1 } } }));
    gens.push(() => make('empty body', { text: '' }));
    gens.push(() => make('UTF-8 BOM', { text: `\ufeff${JSON.stringify(base ?? {})}` }));
    gens.push(() => {
      const type = pick(rng, ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=fuzz', 'application/json; charset=utf-16', 'application/octet-stream', '']);
      return make(`content type ${type || '(none)'}`, { text: type.startsWith('application/x-www') ? 'a=1&b[c]=2' : JSON.stringify(base ?? {}), headers: type ? { 'Content-Type': type } : {} });
    });
  }
  for (const f of schema ? fields(schema, schema) : []) {
    const s = f.schema;
    const type = soleType(s, schema!);
    const at = f.path.join('.');
    if (type) gens.push(() => make(`wrong type ${at}`, { body: setAt(base, f.path, otherType(type, rng)), mustFail: true }));
    if (f.required && f.path.length === 1) gens.push(() => make(`missing ${at}`, { body: setAt(base, f.path, undefined, true), mustFail: true }));
    gens.push(() => make(`deep ${at}`, { text: splice(f.path, deepJson(DEEP)), mustFail: type !== undefined && type !== 'object' && type !== 'array' }));
    if (type === 'string' || s.type?.includes?.('string')) {
      const max = typeof s.maxLength === 'number' ? s.maxLength : undefined;
      if (max !== undefined && max <= 2 * 1024 * 1024) gens.push(() => make(`over maxLength ${at}`, { body: setAt(base, f.path, 'x'.repeat(max + 1)), mustFail: true }));
      gens.push(() => make(`huge ${at}`, { body: setAt(base, f.path, 'h'.repeat(HUGE)) }));
      gens.push(() => make(`nasty ${at}`, { body: setAt(base, f.path, pick(rng, NASTY_STRINGS)) }));
      gens.push(() => make(`NUL in ${at}`, { body: setAt(base, f.path, 'a\u0000b') }));
    }
    if (type === 'integer' || type === 'number') {
      gens.push(() => {
        const x = pick(rng, NASTY_NUMBERS);
        return make(`number ${at}=${String(x)}`, { body: setAt(base, f.path, x), mustFail: typeof x !== 'number' || outOfRange(s, x) });
      });
    }
    if (type === 'array' && typeof s.maxItems === 'number' && s.maxItems <= 10_000) {
      const item = sample(s.items ?? {}, schema!, ctx, String(f.path[f.path.length - 1]));
      gens.push(() => make(`over maxItems ${at}`, { body: setAt(base, f.path, Array.from({ length: s.maxItems + 1 }, () => item)), mustFail: true }));
    }
  }
  if (schema) gens.push(() => make('every optional field', { body: everyField(schema, ctx) }));
  // The first case of each kind is always sent; the rest are drawn from the same generators.
  const out: FuzzCase[] = [];
  const order = gens.map((g, i) => [rng(), i] as const).sort((a, b) => a[0] - b[0]).map(([, i]) => i);
  order.unshift(0);
  for (let k = 0; out.length < count && k < count * 4; k++) {
    const c = gens[order[k % order.length]]();
    if (c) out.push(c);
  }
  return out;
}

/** A body with every top-level property sampled (exercises handlers past validation). */
function everyField(schema: Json, ctx: FuzzContext): unknown {
  const s = deref(schema, schema);
  const out: Record<string, unknown> = (sample(schema, schema, ctx) as Record<string, unknown>) ?? {};
  for (const [k, sub] of Object.entries<Json>(s.properties ?? {})) {
    if (!(k in out)) {
      const v = sample(sub, schema, ctx, k);
      if (v !== undefined) out[k] = v;
    }
  }
  return out;
}
