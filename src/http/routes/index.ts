import type { AppContext } from '../../app/context.ts';
import type { RouteDef } from '../route.ts';
import { configRoutes } from './config.ts';
import { connectionRoutes } from './connections.ts';
import { debugRoutes } from './debug.ts';
import { metaRoutes } from './meta.ts';
import { sessionRoutes } from './sessions.ts';
import { workspaceRoutes } from './workspaces.ts';
import { guiStoreRoutes } from './gui-store.ts';
import { sessionActionRoutes } from './session-actions.ts';
import { sessionProfileRoutes } from './session-profile.ts';
import { sessionV2Routes } from './sessions-v2.ts';
import { fsSearchRoutes } from './session-fs-search.ts';
import { sessionFsRoutes } from './session-fs.ts';
import { hostFsRoutes } from './host-fs.ts';
import { fileRoutes } from './files.ts';
import { terminalRoutes } from './terminals.ts';
import { providerRoutes } from './providers.ts';
import { authRoutes } from './auth.ts';
import { promptRoutes } from './prompts.ts';
import { messageRoutes } from './messages.ts';
import { snapshotRoutes } from './snapshot.ts';
import { snapshotDeps } from '../../sessions/snapshot.ts';
import { titleRoutes } from './titles.ts';
import { mediaRoutes } from './media.ts';
import { approvalRoutes } from './approvals.ts';
import { questionRoutes } from './questions.ts';
import { toolRoutes } from './tools.ts';
import { taskRoutes } from './tasks.ts';
import { skillRoutes } from './skills.ts';
import { transcriptDeps, transcriptRoutes } from './transcript.ts';

/** Every route of the server, one factory per resource file. */
export function allRoutes(app: AppContext): RouteDef[] {
  const routes: RouteDef[] = [];
  const all = () => routes;
  routes.push(
    ...metaRoutes(app, all),
    ...connectionRoutes(app),
    ...sessionRoutes(app),
    ...configRoutes(app),
    ...workspaceRoutes(app),
    ...guiStoreRoutes(app),
    ...sessionActionRoutes(app),
    ...sessionProfileRoutes(app),
    ...sessionV2Routes(app),
    ...fsSearchRoutes(app),
    ...sessionFsRoutes(app),
    ...hostFsRoutes(app),
    ...terminalRoutes(app),
    ...providerRoutes(app),
    ...fileRoutes(app),
    ...authRoutes(app),
    ...promptRoutes(app),
    ...messageRoutes(app),
    ...snapshotRoutes(snapshotDeps(app)),
    ...titleRoutes(app), ...mediaRoutes(app), ...toolRoutes(app),
    ...approvalRoutes(app), ...questionRoutes(app),
    ...taskRoutes(app),
    ...skillRoutes(app),
    ...transcriptRoutes(transcriptDeps(app)),
    ...debugRoutes(app),
  );
  return routes;
}
