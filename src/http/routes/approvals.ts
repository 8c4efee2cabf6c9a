import { findSession, type SessionLookup } from '../../sessions/lookup.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { ApprovalList, ApprovalListQuery, ApprovalParams, ApprovalResolveBody, ApprovalResolved } from '../../../protocol/schemas/approvals.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';
import type { PermissionService } from '../../permissions/service.ts';

export type ApprovalRouteDeps = SessionLookup & { engine: Pick<EngineRegistry, 'resume'>; permissions: PermissionService };

/** Core "Approvals and questions": the approval half. */
export function approvalRoutes(deps: ApprovalRouteDeps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/approvals', operationId: 'listApprovals',
      summary: 'Pending approvals of a session (status=pending is required); resumes a cold session', tags: ['approvals'],
      params: SessionIdParams, query: ApprovalListQuery, data: ApprovalList, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: async ({ params }) => {
        const s = findSession(deps, params.session_id);
        await deps.engine.resume(s);
        return { items: await deps.permissions.list(s.id) };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/approvals/{approval_id}', operationId: 'resolveApproval',
      summary: 'Approve, reject or cancel a pending approval (scope=session with approved remembers the call)', tags: ['approvals'],
      params: ApprovalParams, body: ApprovalResolveBody, data: ApprovalResolved,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.APPROVAL_NOT_FOUND, Codes.ALREADY_RESOLVED, Codes.APPROVAL_TIMED_OUT],
      handler: async ({ params, body }) => {
        const s = findSession(deps, params.session_id);
        const r = await deps.permissions.resolve(s.id, params.approval_id, body);
        if (r === 'not_found') throw new ApiError(Codes.APPROVAL_NOT_FOUND, `no pending approval ${params.approval_id}`);
        if (r === 'already_resolved') throw new ApiError(Codes.ALREADY_RESOLVED, `approval ${params.approval_id} is already resolved`, { data: { resolved: false } });
        if (r === 'timed_out') throw new ApiError(Codes.APPROVAL_TIMED_OUT, `approval ${params.approval_id} timed out`);
        return { resolved: true as const, resolved_at: r.resolved_at };
      },
    }),
  ];
}
