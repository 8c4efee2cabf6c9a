import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { ConfigPatchBody, ConfigView } from '../../../protocol/schemas/config.ts';
import type { ConfigService } from '../../config/service.ts';

/** Core "Config": the resolved global config (secrets redacted) and its merge-patch. */
export function configRoutes(deps: { config: ConfigService }): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/config', operationId: 'getConfig', summary: 'Resolved global config, secrets redacted', tags: ['config'],
      data: ConfigView,
      handler: () => deps.config.view(),
    }),
    route({
      method: 'POST', path: '/api/v1/config', operationId: 'patchConfig', summary: 'Merge-patch the global config', tags: ['config'],
      body: ConfigPatchBody, data: ConfigView, codes: [Codes.VALIDATION],
      handler: ({ body }) => deps.config.patch(body),
    }),
  ];
}
