import { route, type RouteDef } from '../route.ts';
import { ConnectionsData, type ConnectionInfo } from '../../../protocol/schemas/connections.ts';

/** Part B "Search and connections": live WebSocket connections. */
export function connectionRoutes(deps: { connections(): ConnectionInfo[] }): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/connections', operationId: 'listConnections', summary: 'Live WebSocket connections, oldest first', tags: ['server'],
      data: ConnectionsData,
      handler: () => ({ connections: deps.connections() }),
    }),
  ];
}
