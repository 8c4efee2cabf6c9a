/** Walks the request schemas of the served /openapi.json (JSON Schema as @valibot/to-json-schema writes it). */

export type Json = Record<string, any>;

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  op: Json;
}

/** Every operation of the document, in document order. */
export function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) out.push({ method: method.toUpperCase(), path, operationId: op.operationId, op });
  }
  return out;
}

/** The JSON body schema of an operation, if it takes one. */
export function bodySchema(op: Json): Json | undefined {
  return op.requestBody?.content?.['application/json']?.schema;
}

/** Resolves `$ref: '#/definitions/x'` against the root schema it came from. */
export function deref(schema: Json, root: Json): Json {
  let s = schema;
  for (let i = 0; i < 16 && s && typeof s.$ref === 'string'; i++) {
    const name = s.$ref.replace(/^#\/(definitions|\$defs)\//, '');
    s = root.definitions?.[name] ?? root.$defs?.[name] ?? {};
  }
  return s ?? {};
}

/** Problems: every string, number, array and free-form object must declare a bound. */
export function unboundedFields(schema: Json, where: string, root: Json = schema, out: string[] = [], seen = new Set<Json>()): string[] {
  const s = deref(schema, root);
  if (!s || typeof s !== 'object' || seen.has(s)) return out;
  seen.add(s);
  if ('const' in s || Array.isArray(s.enum)) return out;
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const sub of s[key] ?? []) unboundedFields(sub, where, root, out, seen);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  // A free-form value is bounded as a whole (depth, bytes, entries): nothing inside needs its own bound.
  const freeForm = s['x-max-bytes'] !== undefined && s['x-max-depth'] !== undefined;
  if (freeForm) return out;
  if (types.includes('string') && s.maxLength === undefined && s.format !== 'binary') out.push(`${where}: string without maxLength`);
  if ((types.includes('number') || types.includes('integer')) && s.maximum === undefined) out.push(`${where}: number without maximum`);
  if (types.includes('array')) {
    if (s.maxItems === undefined && !freeForm) out.push(`${where}: array without maxItems`);
    if (s.items) unboundedFields(s.items, `${where}[]`, root, out, seen);
  }
  if (types.includes('object')) {
    for (const [k, sub] of Object.entries<Json>(s.properties ?? {})) unboundedFields(sub, where ? `${where}.${k}` : k, root, out, seen);
    const rest = s.additionalProperties;
    if (rest !== undefined && rest !== false && !freeForm) {
      if (s.maxProperties === undefined) out.push(`${where}: open object without maxProperties or JSON bounds`);
      if (rest && typeof rest === 'object') unboundedFields(rest, `${where}.*`, root, out, seen);
    }
    if (s.propertyNames && !freeForm) unboundedFields(s.propertyNames, `${where} (keys)`, root, out, seen);
  }
  if (!types.length && !s.anyOf && !s.oneOf && !s.allOf && !freeForm && Object.keys(s).every((k) => k === 'description' || k === 'title')) {
    out.push(`${where}: any value without JSON bounds`);
  }
  return out;
}

/** Every unbounded request field of the document: path and query parameters, JSON bodies. */
export function unboundedRequestFields(doc: Json): string[] {
  const out: string[] = [];
  for (const { method, path, op } of operations(doc)) {
    const at = `${method} ${path}`;
    for (const p of op.parameters ?? []) unboundedFields(p.schema ?? {}, `${at} ${p.in} ${p.name}`, p.schema ?? {}, out);
    const body = bodySchema(op);
    if (body) unboundedFields(body, `${at} body`, body, out);
  }
  return out;
}
