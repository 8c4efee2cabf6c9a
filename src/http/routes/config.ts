import type { AppContext } from '../../app/context.ts';
import { Codes } from '../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { ConfigPatchBody, ConfigView } from '../../protocol/schemas/config.ts';

/** Core "Config": the resolved global config (secrets redacted) and its merge-patch. */
export function configRoutes(app: AppContext): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/config', operationId: 'getConfig', summary: 'Resolved global config, secrets redacted', tags: ['config'],
      data: ConfigView,
      handler: () => app.config.view(),
    }),
    route({
      method: 'POST', path: '/api/v1/config', operationId: 'patchConfig', summary: 'Merge-patch the global config', tags: ['config'],
      body: ConfigPatchBody, data: ConfigView, codes: [Codes.VALIDATION],
      handler: ({ body }) => app.config.patch(body),
    }),
  ];
}
