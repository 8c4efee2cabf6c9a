import type { AppContext } from '../../app/context.ts';
import { route, type RouteDef } from '../route.ts';
import { ConnectionsData } from '../../protocol/schemas/connections.ts';

/** Part B "Search and connections": live WebSocket connections. */
export function connectionRoutes(app: AppContext): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/connections', operationId: 'listConnections', summary: 'Live WebSocket connections, oldest first', tags: ['server'],
      data: ConnectionsData,
      handler: () => ({ connections: app.connections() }),
    }),
  ];
}
