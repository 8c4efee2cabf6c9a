import { listModelItems, toModelItem } from '../../providers/models/items.ts';
import { Codes } from '../../../protocol/codes.ts';
import { notFound, validationError } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { ModelIdParams, ModelList, SetDefaultData } from '../../../protocol/schemas/providers.ts';
import type { ConfigService } from '../../config/service.ts';

const tags = ['models'];

/** Core "GET /api/v1/models" and ":set_default". */
export function modelRoutes(deps: { config: ConfigService }): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/models', operationId: 'listModels', summary: 'Model items across providers (overrides applied)', tags,
      data: ModelList,
      handler: () => ({ items: listModelItems(deps.config.current()) }),
    }),
    route({
      method: 'POST', path: '/api/v1/models/{model_id}:set_default', operationId: 'setDefaultModel', summary: 'Make an alias the global default model', tags,
      params: ModelIdParams, data: SetDefaultData, codes: [Codes.VALIDATION, Codes.MODEL_ALIAS_NOT_FOUND],
      handler: async ({ params }) => {
        const alias = params.model_id;
        // eslint-disable-next-line no-control-regex
        if (/[\u0000-\u001f]/.test(alias) || !alias.trim()) throw validationError([{ field: 'model_id', message: 'malformed alias' }]);
        const record = deps.config.current().models[alias];
        if (!record) throw notFound(Codes.MODEL_ALIAS_NOT_FOUND, 'model alias', alias);
        await deps.config.mutate((doc) => ({ ...doc, default_model: alias }));
        return { default_model: alias, model: toModelItem(alias, deps.config.current().models[alias] ?? record) };
      },
    }),
  ];
}
