import * as v from 'valibot';
import { PROVIDER_TYPES } from './enums.ts';
import { Id, LIMITS, Line, boundedArray, intIn, maxString } from './common.ts';
import { CAPABILITIES } from './config.ts';

const Int1 = intIn(1, Number.MAX_SAFE_INTEGER);
const IdText = maxString(LIMITS.idChars);
const ProviderType = v.picklist(PROVIDER_TYPES, `must be one of ${PROVIDER_TYPES.join(', ')}`);

/** One `models[]` entry of a provider body; each becomes alias `provider_id/model`. */
export const ProviderModelEntry = v.object({
  model: Id,
  max_context_size: Int1,
  display_name: v.optional(Line),
  capabilities: v.optional(boundedArray(v.picklist(CAPABILITIES, `must be one of ${CAPABILITIES.join(', ')}`), 100)),
  max_output_size: v.optional(Int1),
  support_efforts: v.optional(boundedArray(IdText, 100)),
  adaptive_thinking: v.optional(v.boolean()),
});

const Models = v.pipe(boundedArray(ProviderModelEntry), v.minLength(1, 'at least 1 entry'));

/** POST /api/v1/providers. */
export const ProviderCreateBody = v.object({
  id: v.pipe(IdText, v.description('letters, digits, -, _, spaces; starts with a letter or digit')),
  type: ProviderType,
  api_key: v.optional(Line),
  base_url: v.optional(v.pipe(Line, v.description('no environment-variable placeholder'))),
  default_model: v.optional(v.pipe(IdText, v.description('one of models[].model'))),
  models: Models,
});
export type ProviderCreate = v.InferOutput<typeof ProviderCreateBody>;

/** PUT /api/v1/providers/{provider_id}. */
export const ProviderUpdateBody = v.object({
  new_id: v.optional(v.pipe(IdText, v.description('rename; same rules as id'))),
  type: ProviderType,
  api_key: v.optional(v.pipe(Line, v.description('tri-state: omitted keeps, empty string clears, other value replaces'))),
  base_url: v.optional(Line),
  default_model: v.optional(IdText),
  models: Models,
});
export type ProviderUpdate = v.InferOutput<typeof ProviderUpdateBody>;

export const ProviderIdParams = v.object({ provider_id: Id });
export const ModelIdParams = v.object({ model_id: Id });
export const CatalogIdParams = v.object({ catalog_id: Id });

/** Core "Provider item". */
export const ProviderItem = v.object({
  id: v.string(),
  type: v.string(),
  base_url: v.optional(v.string()),
  default_model: v.optional(v.string()),
  has_api_key: v.boolean(),
  status: v.picklist(['connected', 'unconfigured', 'error']),
  models: v.pipe(v.array(v.string()), v.description('alias ids')),
});
export const ProviderDetail = v.object({ ...ProviderItem.entries, api_key: v.optional(v.pipe(v.string(), v.description('revealed when stored'))) });
export const ProviderList = v.object({ items: v.array(ProviderItem) });
export const ProviderUpdateData = v.object({ provider: ProviderItem });

/** Core "Model item". */
export const ModelItem = v.object({
  provider: v.string(),
  model: v.pipe(v.string(), v.description('alias id')),
  display_name: v.optional(v.string()),
  max_context_size: v.number(),
  capabilities: v.optional(v.array(v.string())),
  support_efforts: v.optional(v.array(v.string())),
  default_effort: v.optional(v.string()),
});
export const ModelList = v.object({ items: v.array(ModelItem) });
export const SetDefaultData = v.object({ default_model: v.string(), model: ModelItem });

export const RefreshReport = v.object({
  changed: v.array(v.object({ provider_id: v.string(), provider_name: v.string(), added: v.array(v.string()), removed: v.array(v.string()) })),
  unchanged: v.array(v.string()),
  failed: v.array(v.object({ provider: v.string(), reason: v.string() })),
});

export const CatalogModel = v.object({
  id: v.string(),
  name: v.optional(v.string()),
  max_context_size: v.number(),
  capabilities: v.optional(v.array(v.string())),
  reasoning: v.boolean(),
});
export const CatalogEntry = v.object({
  id: v.string(),
  name: v.string(),
  wire_type: v.nullable(v.string()),
  base_url: v.nullable(v.string()),
  guessed: v.pipe(v.boolean(), v.description('wire type resolved heuristically')),
  needs_base_url: v.boolean(),
  rejected: v.boolean(),
  reject_reason: v.nullable(v.string()),
  env_key: v.nullable(v.string()),
  models: v.array(CatalogModel),
});
export const CatalogList = v.object({ items: v.array(CatalogEntry) });

/** POST /api/v1/providers:import_catalog. */
export const ImportCatalogBody = v.object({
  catalog_id: Id,
  id: v.optional(v.pipe(IdText, v.description('local provider id; defaults to catalog_id'))),
  api_key: v.optional(Line),
  base_url: v.optional(v.pipe(Line, v.description('required when the entry needs_base_url'))),
});
export const ImportCatalogData = v.object({ provider: ProviderItem, models_imported: v.number() });

/** POST /api/v1/providers:import_registry. */
export const ImportRegistryBody = v.object({
  url: v.pipe(v.string(), v.maxLength(LIMITS.lineChars, `must be at most ${LIMITS.lineChars} characters`), v.url('must be a URL'), v.regex(/^https?:\/\//i, 'must be an http(s) URL')),
  api_key: v.optional(v.pipe(Line, v.description('Bearer key; reused from the previous import of the same URL when omitted'))),
});
export const ImportRegistryData = v.object({ providers: v.array(ProviderItem), models_imported: v.number() });

/** `event.model_catalog.changed` payload. */
export const ModelCatalogChangedPayload = v.object({
  reason: v.pipe(v.string(), v.description('provider.created / provider.updated / provider.deleted / refresh / import_catalog / import_registry')),
  providers: v.array(v.string()),
  added: v.array(v.string()),
  removed: v.array(v.string()),
  updated: v.array(v.string()),
  changed: v.pipe(
    v.array(v.object({ provider_id: v.string(), provider_name: v.string(), added: v.array(v.string()), removed: v.array(v.string()) })),
    v.description('the refresh-report shape clients read: per provider whose aliases changed'),
  ),
  unchanged: v.pipe(v.array(v.string()), v.description('providers a refresh looked at and left as they were; [] for other writes')),
  failed: v.pipe(v.array(v.object({ provider: v.string(), reason: v.string() })), v.description('providers a refresh could not read; [] for other writes')),
});
