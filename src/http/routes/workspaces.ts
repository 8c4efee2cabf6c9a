import { addDir } from '../../workspaces/add-dir.ts';
import { deleteWorkspace, listWorkspaces, registerWorkspace, renameWorkspace, setWorkspaceTrust, type WorkspaceCommandDeps } from '../../workspaces/commands.ts';
import { findWorkspace } from '../../workspaces/service.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import {
  AddDirBody, AddDirData, WorkspaceCreateBody, WorkspaceDeleted, WorkspaceIdParams, WorkspaceList, WorkspaceObject,
  WorkspacePatchBody, WorkspaceTrust,
} from '../../../protocol/schemas/workspaces.ts';

/** Part B "Workspaces": registration, rename, unregister, trust, add-dir. */
export function workspaceRoutes(deps: WorkspaceCommandDeps): RouteDef[] {
  const tags = ['workspaces'];
  const params = WorkspaceIdParams;
  return [
    route({
      method: 'GET', path: '/api/v1/workspaces', operationId: 'listWorkspaces', summary: 'List workspaces, most recently opened first', tags,
      data: WorkspaceList,
      handler: () => listWorkspaces(deps),
    }),
    route({
      method: 'POST', path: '/api/v1/workspaces', operationId: 'registerWorkspace', summary: 'Register a directory (idempotent on root)', tags,
      body: WorkspaceCreateBody, data: WorkspaceObject, codes: [Codes.VALIDATION, Codes.PATH_NOT_FOUND],
      handler: ({ body }) => registerWorkspace(deps, body),
    }),
    route({
      method: 'PATCH', path: '/api/v1/workspaces/{workspace_id}', operationId: 'renameWorkspace', summary: 'Rename a workspace', tags,
      params, body: WorkspacePatchBody, data: WorkspaceObject, codes: [Codes.VALIDATION, Codes.WORKSPACE_NOT_FOUND],
      handler: ({ params: p, body }) => renameWorkspace(deps, p.workspace_id, body.name),
    }),
    route({
      method: 'DELETE', path: '/api/v1/workspaces/{workspace_id}', operationId: 'deleteWorkspace', summary: 'Unregister a workspace (sessions stay on disk)', tags,
      params, data: WorkspaceDeleted, codes: [Codes.WORKSPACE_NOT_FOUND],
      handler: ({ params: p }) => deleteWorkspace(deps, p.workspace_id),
    }),
    route({
      method: 'GET', path: '/api/v1/workspaces/{workspace_id}/trust', operationId: 'getWorkspaceTrust', summary: 'Whether the workspace is trusted', tags,
      params, data: WorkspaceTrust, codes: [Codes.WORKSPACE_NOT_FOUND],
      handler: ({ params: p }) => ({ trusted: findWorkspace(deps, p.workspace_id).trusted }),
    }),
    route({
      method: 'POST', path: '/api/v1/workspaces/{workspace_id}/trust', operationId: 'trustWorkspace', summary: 'Trust the workspace (enables project config)', tags,
      params, data: WorkspaceTrust, codes: [Codes.WORKSPACE_NOT_FOUND],
      handler: ({ params: p }) => setWorkspaceTrust(deps, p.workspace_id, true),
    }),
    route({
      method: 'POST', path: '/api/v1/workspaces/{workspace_id}/untrust', operationId: 'untrustWorkspace', summary: 'Untrust the workspace (disables project config)', tags,
      params, data: WorkspaceTrust, codes: [Codes.WORKSPACE_NOT_FOUND],
      handler: ({ params: p }) => setWorkspaceTrust(deps, p.workspace_id, false),
    }),
    route({
      method: 'POST', path: '/api/v1/workspaces/{workspace_id}/add-dir', operationId: 'addWorkspaceDir', summary: 'Add a directory sessions of the workspace may use', tags,
      params, body: AddDirBody, data: AddDirData, codes: [Codes.VALIDATION, Codes.PATH_NOT_FOUND, Codes.WORKSPACE_NOT_FOUND],
      handler: ({ params: p, body }) => addDir(deps, p.workspace_id, body),
    }),
  ];
}
