import * as v from 'valibot';
import { acceptPrompt, type IntakeDeps } from '../../engine/prompt-intake.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';
import type { SessionRuntime } from '../../engine/runtime.ts';
import { findOwnedSession, findSession } from '../../sessions/lookup.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { PromptBody, PromptList, PromptObject, PromptTailParams, SteerBody, SteerResult } from '../../../protocol/schemas/prompts.ts';
import { EmptyBody, SessionIdParams } from '../../../protocol/schemas/sessions.ts';

const tags = ['prompts'];

const notQueued = (id: string) => new ApiError(Codes.PROMPT_NOT_FOUND, `prompt not queued: ${id}`, { details: { prompt_id: id } });

function steer(rt: SessionRuntime | undefined, given: string[]): { steered: true; prompt_ids: string[] } {
  const ids = [...new Set(given)];
  for (const id of ids) if (!rt?.isQueued(id)) throw notQueued(id);
  rt!.steer(ids);
  return { steered: true, prompt_ids: ids };
}

export type PromptRouteDeps = IntakeDeps & { engine: Pick<EngineRegistry, 'get' | 'runtime' | 'agentRuntime'> };

/** The prompt queue of a session: POST/GET prompts, steering and aborting prompts. */
export function promptRoutes(deps: PromptRouteDeps): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/prompts', operationId: 'createPrompt', summary: 'Send a prompt; returns once accepted (running or queued)', tags,
      params: SessionIdParams, body: PromptBody, data: PromptObject,
      codes: [
        Codes.VALIDATION, Codes.NO_PROVIDER, Codes.PROVIDER_NO_CREDENTIAL, Codes.PROVIDER_CREDENTIAL_REJECTED, Codes.MODEL_NOT_RESOLVED,
        Codes.SESSION_NOT_FOUND, Codes.FILE_NOT_FOUND, Codes.SKILL_NOT_FOUND, Codes.PROMPT_COMPLETED, Codes.SKILL_NOT_USER_ACTIVATABLE, Codes.PROMPT_ID_RESERVED,
        Codes.SESSION_BUSY,
      ],
      handler: ({ params, body }) => acceptPrompt(deps, params.session_id, body),
    }),
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/prompts', operationId: 'listPrompts', summary: 'The active prompt and the queue', tags,
      params: SessionIdParams, data: PromptList, codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => {
        findSession(deps, params.session_id);
        return deps.engine.get(params.session_id)?.listPrompts() ?? { active: null, queued: [] };
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/prompts:steer', operationId: 'steerPrompts', summary: 'Fold queued prompts into the active turn', tags,
      params: SessionIdParams, body: SteerBody, data: SteerResult, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.PROMPT_NOT_FOUND, Codes.SESSION_BUSY],
      handler: ({ params, body }) => {
        findOwnedSession(deps, params.session_id);
        return steer(deps.engine.get(params.session_id), body.prompt_ids);
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/prompts/{prompt_id}:steer', operationId: 'steerPrompt', summary: 'Fold one queued prompt into the active turn', tags,
      params: PromptTailParams, body: EmptyBody, data: SteerResult, codes: [Codes.SESSION_NOT_FOUND, Codes.PROMPT_NOT_FOUND, Codes.SESSION_BUSY],
      handler: ({ params }) => {
        findOwnedSession(deps, params.session_id);
        return steer(deps.engine.get(params.session_id), [params.prompt_id]);
      },
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/prompts/{prompt_id}:abort', operationId: 'abortPrompt', summary: 'Abort a queued or running prompt', tags,
      params: PromptTailParams, body: EmptyBody, data: v.object({ aborted: v.literal(true) }), codes: [Codes.SESSION_NOT_FOUND, Codes.PROMPT_NOT_FOUND, Codes.PROMPT_COMPLETED, Codes.SESSION_BUSY],
      handler: async ({ params }) => {
        const session = findOwnedSession(deps, params.session_id);
        const rt = await deps.engine.runtime(session);
        const p = rt.prompts.get(params.prompt_id);
        if (!p) throw new ApiError(Codes.PROMPT_NOT_FOUND, `prompt not found: ${params.prompt_id}`, { details: { prompt_id: params.prompt_id } });
        if (p.status === 'completed' || p.status === 'aborted') {
          throw new ApiError(Codes.PROMPT_COMPLETED, `prompt ${params.prompt_id} already completed`, { data: { aborted: false } });
        }
        await rt.abortPrompt(params.prompt_id);
        return { aborted: true as const };
      },
    }),
  ];
}
