import type * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';

type Json = Record<string, any>;

/** The JSON Schema of a wire schema, for /openapi.json, /asyncapi.json and the tools offered to models. */
export function schemaToJson(schema: v.GenericSchema<any, any>): Json {
  return toJsonSchema(schema, { errorMode: 'ignore', typeMode: 'input' }) as Json;
}
