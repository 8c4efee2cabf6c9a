import { ConfigChangedPayload } from '../schemas/config.ts';
import { ModelCatalogChangedPayload } from '../schemas/providers.ts';
import { defineEvent } from './define.ts';

/** Daemon configuration and the model catalog, on the global stream. */

const configChanged = defineEvent({
  type: 'event.config.changed', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'Config changed; changes within a short window merge into one event',
  payload: ConfigChangedPayload,
});

const modelCatalogChanged = defineEvent({
  type: 'event.model_catalog.changed', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'Model aliases were added, removed or rewritten (provider writes, refreshes, imports)',
  payload: ModelCatalogChangedPayload,
});

export const CONFIG_EVENTS = [configChanged, modelCatalogChanged] as const;
