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
import { fileIndexes, sessionFsSearchRoutes } from './session-fs-search.ts';
import { workspaceFsRoutes } from './workspace-fs.ts';
import { sessionFsRoutes } from './session-fs.ts';
import { hostFsRoutes } from './host-fs.ts';
import { fileRoutes } from './files.ts';
import { terminalRoutes } from './terminals.ts';
import { modelDirectory, providerRoutes } from './providers.ts';
import { modelRoutes } from './models.ts';
import { catalogRoutes } from './catalog.ts';
import { authRoutes } from './auth.ts';
import { promptRoutes } from './prompts.ts';
import { messageRoutes } from './messages.ts';
import { snapshotRoutes } from './snapshot.ts';
import { titleRoutes } from './titles.ts';
import { mediaRoutes } from './media.ts';
import { approvalRoutes } from './approvals.ts';
import { questionRoutes } from './questions.ts';
import { toolRoutes } from './tools.ts';
import { taskRoutes } from './tasks.ts';
import { skillRoutes } from './skills.ts';
import { transcriptRoutes } from './transcript.ts';
import { fileHistoryRoutes } from './file-history.ts';
import { mcpRoutes } from './mcp.ts';
import { mcpV2Routes } from './mcp-v2.ts';
import { mcpAuthRoutes } from './mcp-auth.ts';
import { pluginRoutes } from './plugins.ts';
import { capabilityRoutes } from './capabilities.ts';
import { sessionArchiveRoutes } from './session-archive.ts';
import { searchRoutes } from './search.ts';

type DepsOf<F extends (deps: never, ...rest: never[]) => RouteDef[]> = Parameters<F>[0];

/** What the route factories declare they use, together; each factory below is typed with its own part. */
export type RouteDeps =
  & DepsOf<typeof metaRoutes> & DepsOf<typeof connectionRoutes> & DepsOf<typeof sessionRoutes> & DepsOf<typeof configRoutes>
  & DepsOf<typeof workspaceRoutes> & DepsOf<typeof guiStoreRoutes> & DepsOf<typeof sessionActionRoutes> & DepsOf<typeof sessionProfileRoutes>
  & DepsOf<typeof sessionV2Routes> & DepsOf<typeof sessionFsSearchRoutes> & DepsOf<typeof workspaceFsRoutes> & DepsOf<typeof sessionFsRoutes>
  & DepsOf<typeof hostFsRoutes> & DepsOf<typeof terminalRoutes> & DepsOf<typeof providerRoutes> & DepsOf<typeof modelRoutes>
  & DepsOf<typeof fileRoutes> & DepsOf<typeof authRoutes>
  & DepsOf<typeof promptRoutes> & DepsOf<typeof messageRoutes> & DepsOf<typeof snapshotRoutes> & DepsOf<typeof titleRoutes>
  & DepsOf<typeof mediaRoutes> & DepsOf<typeof toolRoutes> & DepsOf<typeof approvalRoutes> & DepsOf<typeof questionRoutes>
  & DepsOf<typeof taskRoutes> & DepsOf<typeof skillRoutes> & DepsOf<typeof transcriptRoutes> & DepsOf<typeof fileHistoryRoutes> & DepsOf<typeof debugRoutes>
  & DepsOf<typeof mcpRoutes> & DepsOf<typeof mcpV2Routes> & DepsOf<typeof mcpAuthRoutes> & DepsOf<typeof pluginRoutes> & DepsOf<typeof capabilityRoutes>
  & DepsOf<typeof sessionArchiveRoutes> & DepsOf<typeof searchRoutes> & Parameters<typeof modelDirectory>[0];

/** Every route of the server: every file of this folder, one factory each. */
export function allRoutes(deps: RouteDeps): RouteDef[] {
  const routes: RouteDef[] = [];
  const all = () => routes;
  // Shared by two route files each: the file-index cache (session and workspace fs:search), the model directory (providers, catalog).
  const indexes = fileIndexes(deps);
  const directory = modelDirectory(deps);
  routes.push(
    ...metaRoutes(deps, all),
    ...connectionRoutes(deps),
    ...sessionRoutes(deps),
    ...configRoutes(deps),
    ...workspaceRoutes(deps),
    ...guiStoreRoutes(deps),
    ...sessionActionRoutes(deps),
    ...sessionProfileRoutes(deps),
    ...sessionV2Routes(deps),
    ...sessionFsSearchRoutes(deps, indexes),
    ...workspaceFsRoutes(deps, indexes),
    ...sessionFsRoutes(deps),
    ...hostFsRoutes(deps),
    ...terminalRoutes(deps),
    ...providerRoutes(deps, directory),
    ...modelRoutes(deps),
    ...catalogRoutes(directory),
    ...fileRoutes(deps),
    ...authRoutes(deps),
    ...promptRoutes(deps),
    ...messageRoutes(deps),
    ...snapshotRoutes(deps),
    ...titleRoutes(deps), ...mediaRoutes(deps), ...toolRoutes(deps),
    ...approvalRoutes(deps), ...questionRoutes(deps),
    ...taskRoutes(deps),
    ...skillRoutes(deps),
    ...transcriptRoutes(deps),
    ...fileHistoryRoutes(deps),
    ...sessionArchiveRoutes(deps),
    ...searchRoutes(deps),
    ...mcpRoutes(deps), ...mcpV2Routes(deps), ...mcpAuthRoutes(deps),
    ...pluginRoutes(deps), ...capabilityRoutes(deps),
    ...debugRoutes(deps),
  );
  return routes;
}
