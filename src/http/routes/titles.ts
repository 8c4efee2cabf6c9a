import { generateTitle, type TitleDeps } from '../../engine/titles/generate.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import { GeneratedTitle, TitleGenerateBody } from '../../../protocol/schemas/titles.ts';

/** Core "Sessions": title generation with the session's model. */
export function titleRoutes(deps: TitleDeps): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/title/generate', operationId: 'generateSessionTitle', tags: ['sessions'],
      summary: 'Generate a 3-8 word title with the session\'s model (agent_config.model, else default_model) from the user prompts, the first turn '
        + 'or a digest; broadcasts session.meta.updated. 40923 details.reason: no_model, model_not_resolved, no_provider, no_credential, '
        + 'provider_misconfigured, no_content, title_exists (a title and no force), custom_title (a custom title always wins), backend_failed.',
      params: SessionIdParams, body: TitleGenerateBody, data: GeneratedTitle,
      codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND, Codes.TITLE_GENERATION_UNAVAILABLE, Codes.SESSION_BUSY],
      handler: ({ params, body }) => generateTitle(deps, params.session_id, { force: body.force, source: body.source }),
    }),
  ];
}
