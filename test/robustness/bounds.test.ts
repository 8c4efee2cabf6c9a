import test from 'ava';
import { schemaToJson } from '../../protocol/json-schema.ts';
import { ClientPayloads } from '../../protocol/ws/client-frames.ts';
import { serverFor } from '../helpers/server.ts';
import { unboundedFields, unboundedRequestFields } from './schema-walk.ts';

test('every request string, number, array and free-form value in the served /openapi.json declares its bound', async (t) => {
  const s = await serverFor(t);
  const doc = await (await fetch(`${s.baseUrl}/openapi.json`, { headers: { Authorization: `Bearer ${s.token}` } })).json();
  t.deepEqual(unboundedRequestFields(doc), []);
  // The bounds are documented where JSON Schema has no keyword for them.
  const create = doc.paths['/api/v1/sessions'].post.requestBody.content['application/json'].schema;
  t.like(create.properties.agent_config, { 'x-max-depth': 32, 'x-max-bytes': 65536, 'x-max-entries': 1000 });
  t.like(create.properties.title, { maxLength: 1000 });
  const read = doc.paths['/api/v1/sessions/{session_id}/fs:read'].post.requestBody.content['application/json'].schema;
  t.like(read.properties.path, { maxLength: 4096, 'x-max-bytes': 4096 });
  const param = doc.paths['/api/v1/sessions/{session_id}'].get.parameters[0];
  t.like(param.schema, { maxLength: 256 });
});

test('every WebSocket client frame payload declares its bounds', (t) => {
  for (const [type, schema] of Object.entries(ClientPayloads)) {
    t.deepEqual(unboundedFields(schemaToJson(schema), type), [], type);
  }
});
