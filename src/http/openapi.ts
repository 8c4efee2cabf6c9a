import { schemaToJson } from '../../protocol/json-schema.ts';
import type { RouteDef } from './route.ts';

type Json = Record<string, unknown>;


function envelope(data: Json | undefined, code: number): Json {
  return {
    type: 'object',
    required: ['code', 'msg', 'data', 'request_id'],
    properties: {
      code: { type: 'integer', const: code },
      msg: { type: 'string' },
      data: data ?? {},
      request_id: { type: 'string', description: 'ULID' },
    },
  };
}

const ERROR_ENVELOPE: Json = {
  type: 'object',
  required: ['code', 'msg', 'data', 'request_id'],
  properties: {
    code: { type: 'integer' },
    msg: { type: 'string' },
    data: {},
    details: { description: 'field issues [{field, message}] for 40001, or context for other codes' },
    request_id: { type: 'string' },
  },
};

function parameters(def: RouteDef): Json[] {
  const out: Json[] = [];
  // Path parameters carry their schema's bounds when the route declares one.
  const pathProps = def.params ? ((schemaToJson(def.params) as { properties?: Record<string, Json> }).properties ?? {}) : {};
  for (const m of def.path.matchAll(/\{\*?([a-z_]+)\}/gi)) {
    out.push({ name: m[1], in: 'path', required: true, schema: pathProps[m[1]] ?? { type: 'string' } });
  }
  if (def.query) {
    const js = schemaToJson(def.query) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: 'query', required: js.required?.includes(name) ?? false, schema });
    }
  }
  return out;
}

/** OpenAPI 3.1 document generated from the route declarations. */
export function buildOpenApi(routes: RouteDef[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const def of routes) {
    const op: Json = {
      operationId: def.operationId,
      summary: def.summary,
      tags: def.tags,
      parameters: parameters(def),
      responses: {
        [String(def.successStatus ?? 200)]: def.successStatus === 204
          ? { description: 'no content' }
          : { description: 'success', content: { 'application/json': { schema: def.raw ? {} : envelope(def.data ? schemaToJson(def.data) : undefined, def.successCode ?? 0) } } },
        default: { description: `error envelope; codes: ${(def.codes ?? []).join(', ') || 'see Errors'}`, content: { 'application/json': { schema: ERROR_ENVELOPE } } },
      },
      'x-business-codes': def.codes ?? [],
    };
    if (def.auth === false) op.security = [];
    if (def.body) op.requestBody = { required: true, content: { [def.multipart ? 'multipart/form-data' : 'application/json']: { schema: schemaToJson(def.body) } } };
    const docPath = def.path.replace(/\{\*([a-z_]+)\}/gi, '{$1}');
    paths[docPath] = { ...(paths[docPath] ?? {}), [def.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc-code local server', version, description: 'Every JSON response is an envelope {code, msg, data, request_id}; code 0 = success. '
        + 'Paths are matched case-sensitively in exactly the spelling documented here (escaped unreserved characters are decoded first); '
        + 'empty or dot segments are refused with HTTP 404, code 40001; every spelling of /api/* needs the bearer token. '
        + 'A Host header other than an IP literal, localhost, the bound host or a name allowed with --allowed-host / SVC_CODE_ALLOWED_HOSTS '
        + 'is refused with HTTP 403, code 40101 (DNS-rebinding protection). See docs/.' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
