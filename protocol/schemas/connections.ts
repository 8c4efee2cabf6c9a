import * as v from 'valibot';

/** Part B "GET /api/v1/connections": one live WebSocket connection. */
export const ConnectionItem = v.object({
  id: v.pipe(v.string(), v.description('ws_connection_id, as in server_hello')),
  connected_at: v.pipe(v.string(), v.description('ISO 8601')),
  remote_address: v.nullable(v.string()),
  user_agent: v.nullable(v.string()),
  has_client_hello: v.boolean(),
  subscriptions: v.pipe(v.array(v.string()), v.description('subscribed session ids')),
});

/** One live connection as GET /api/v1/connections lists it. */
export type ConnectionInfo = v.InferOutput<typeof ConnectionItem>;

export const ConnectionsData = v.object({ connections: v.array(ConnectionItem) });
