import test, { type ExecutionContext } from 'ava';
import { eventDefs } from '../../protocol/events/registry.ts';
import { buildRouter } from '../../src/http/register.ts';
import { toRouterPath } from '../../src/http/route.ts';
import { serverFor } from '../helpers/server.ts';

// The API surface: what the route table mounts is what /openapi.json documents, code for code, and
// every event a client can receive is in /asyncapi.json. Both documents are read from a running server.

/** A running server and the document it serves at `url`. */
async function served(t: ExecutionContext, url: string) {
  const s = await serverFor(t);
  const res = await s.req('GET', url);
  t.is(res.status, 200);
  return { s, doc: res.body as any };
}

/** An OpenAPI path as `buildOpenApi` writes it: a multi-segment slot `{*path}` is documented as `{path}`. */
const docPath = (specPath: string) => specPath.replace(/\{\*([a-z_]+)\}/gi, '{$1}');

test('every mounted route is in /openapi.json at its path and method, with its operation id, success status and exactly its declared codes', async (t) => {
  const { s, doc } = await served(t, '/openapi.json');
  const routes = s.routes;
  t.true(routes.length > 100, `${routes.length} routes`);

  // Mounted: the router createHttpApp builds from the same table has one named layer per route.
  const layers = buildRouter(routes).stack.filter((l) => l.name);
  t.is(layers.length, routes.length);
  const byName = new Map(layers.map((l) => [l.name, l]));
  t.is(byName.size, routes.length, 'operation ids are unique');

  for (const def of routes) {
    const name = `${def.method} ${def.path}`;
    const layer = byName.get(def.operationId);
    t.is(layer?.path, toRouterPath(def.path), name);
    t.true(layer?.methods.includes(def.method), name);
    const op = doc.paths[docPath(def.path)]?.[def.method.toLowerCase()];
    if (!op) {
      t.fail(`${name} is not in /openapi.json`);
      continue;
    }
    t.is(op.operationId, def.operationId, name);
    t.deepEqual(op['x-business-codes'], def.codes ?? [], name);
    t.truthy(op.responses[String(def.successStatus ?? 200)], `${name}: success status`);
  }

  // Nothing documented that is not mounted.
  const documented = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) => Object.values(ops));
  t.is(documented.length, routes.length);
  t.deepEqual(documented.map((op) => op.operationId).sort(), routes.map((r) => r.operationId).sort());
});

test('every event clients receive is in /asyncapi.json, on the operation of its receivers; internal events are not', async (t) => {
  const { doc } = await served(t, '/asyncapi.json');
  const defs = [...eventDefs()];
  t.true(defs.length > 60, `${defs.length} events`);
  const sent = (operation: string) => new Set(doc.operations[operation].messages.map((m: { $ref: string }) => m.$ref.split('/').pop()));
  const global = sent('sendGlobalEvents');
  const session = sent('sendSessionEvents');
  let received = 0;
  for (const d of defs) {
    const message = doc.components.messages[d.type];
    if (d.receivers === 'internal') {
      t.is(message, undefined, `${d.type} is internal`);
      t.false(global.has(d.type) || session.has(d.type), d.type);
      continue;
    }
    received++;
    t.is(message?.payload?.properties?.type?.const, d.type, d.type);
    t.truthy(message.payload.properties.payload, `${d.type}: payload schema`);
    t.truthy(doc.channels.events.messages[d.type], `${d.type}: on the channel`);
    t.true((d.receivers === 'broadcast' ? global : session).has(d.type), `${d.type}: sent to ${d.receivers}`);
  }
  t.true(received > 50, `${received} events clients receive`);
});
