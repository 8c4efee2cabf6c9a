import * as v from 'valibot';
import { bindRuntime, sessionStatus, sessionWarnings, type SessionInfoDeps } from '../../sessions/info.ts';
import { findSession } from '../../sessions/lookup.ts';
import { updateProfile } from '../../sessions/profile.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { ProfileBody, RuntimeBinding, RuntimeBody, SessionIdParams, SessionObject, SessionStatus, Warnings } from '../../../protocol/schemas/sessions.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';
import type { SessionCommandDeps } from '../../sessions/commands.ts';
import type { ConfigService } from '../../config/service.ts';

export type SessionProfileRouteDeps = SessionCommandDeps & SessionInfoDeps & { engine: Pick<EngineRegistry, 'resume'>; config: ConfigService };

/** Core "Sessions": profile update, status, goal, warnings, runtime. */
export function sessionProfileRoutes(deps: SessionProfileRouteDeps): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/profile', operationId: 'updateSessionProfile',
      summary: 'Update title, metadata and agent_config (system_prompt, tools, mcp_servers and permission_rules are stored, not applied)', tags: ['sessions'],
      params: SessionIdParams, body: ProfileBody, data: SessionObject, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.SESSION_BUSY],
      handler: ({ params, body }) => updateProfile(deps, params.session_id, body),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/status', operationId: 'getSessionStatus', summary: 'Status rollup of a session; resumes a cold session', tags: ['sessions'],
      params: SessionIdParams, data: SessionStatus, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: async ({ params }) => {
        const s = findSession(deps, params.session_id);
        await deps.engine.resume(s);
        return sessionStatus(deps, s);
      },
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/goal', operationId: 'getSessionGoal', summary: 'Goal snapshot, or null', tags: ['sessions'],
      params: SessionIdParams, data: v.nullable(v.record(v.string(), v.unknown())), codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => findSession(deps, params.session_id).goal ?? null,
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/warnings', operationId: 'getSessionWarnings', summary: 'Warnings about the session (agents-md-oversized)', tags: ['sessions'],
      params: SessionIdParams, data: Warnings, codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => sessionWarnings(findSession(deps, params.session_id)),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/runtime', operationId: 'getSessionRuntime', summary: 'Runtime binding', tags: ['sessions'],
      params: SessionIdParams, data: RuntimeBinding, codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => {
        const s = findSession(deps, params.session_id);
        return { workspace_id: s.workspace_id, runtime_id: s.runtime_id };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/runtime', operationId: 'bindSessionRuntime', summary: 'Bind the session to a runtime (only `local` exists)', tags: ['sessions'],
      params: SessionIdParams, body: RuntimeBody, data: RuntimeBinding, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.RUNTIME_NOT_FOUND, Codes.RUNTIME_UNAVAILABLE, Codes.SESSION_BUSY],
      handler: ({ params, body }) => bindRuntime(deps, params.session_id, body.runtime_id),
    }),
  ];
}
