import type { AppContext } from '../../app/context.ts';
import type { RouteDef } from '../route.ts';
import { metaRoutes } from './meta.ts';
import { sessionRoutes } from './sessions.ts';

/** Every route of the server, one factory per resource file. */
export function allRoutes(app: AppContext): RouteDef[] {
  const routes: RouteDef[] = [];
  const all = () => routes;
  routes.push(
    ...metaRoutes(app, all),
    ...sessionRoutes(app),
  );
  return routes;
}
