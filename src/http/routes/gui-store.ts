import { clearGui, removeGuiItem, setGuiItem, type GuiDeps } from '../../gui/store.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { GuiItem, GuiKeyBody, GuiKeyQuery, GuiLength, GuiNull, GuiSetItemBody } from '../../../protocol/schemas/gui-store.ts';

/** Part B "GUI store": server-backed localStorage. */
export function guiStoreRoutes(deps: GuiDeps): RouteDef[] {
  const tags = ['gui-store'];
  return [
    route({
      method: 'GET', path: '/api/v1/gui/store/length', operationId: 'guiStoreLength', summary: 'Number of stored keys', tags,
      data: GuiLength,
      handler: () => ({ length: deps.gui.length }),
    }),
    route({
      method: 'GET', path: '/api/v1/gui/store/getItem', operationId: 'guiStoreGetItem', summary: 'Value of a key (null when absent)', tags,
      query: GuiKeyQuery, data: GuiItem, codes: [Codes.VALIDATION],
      handler: ({ query }) => ({ value: deps.gui.get(query.key) }),
    }),
    route({
      method: 'POST', path: '/api/v1/gui/store/setItem', operationId: 'guiStoreSetItem', summary: 'Store a string value under a key', tags,
      body: GuiSetItemBody, data: GuiNull, codes: [Codes.VALIDATION],
      handler: ({ body }) => setGuiItem(deps, body.key, body.value),
    }),
    route({
      method: 'POST', path: '/api/v1/gui/store/removeItem', operationId: 'guiStoreRemoveItem', summary: 'Remove a key (no-op when absent)', tags,
      body: GuiKeyBody, data: GuiNull, codes: [Codes.VALIDATION],
      handler: ({ body }) => removeGuiItem(deps, body.key),
    }),
    route({
      method: 'POST', path: '/api/v1/gui/store/clear', operationId: 'guiStoreClear', summary: 'Remove every key', tags,
      data: GuiNull,
      handler: () => clearGui(deps),
    }),
  ];
}
