import type { ConfigService } from '../config/service.ts';
import { compact, isTable, type Doc } from '../config/read.ts';
import type { ModelList } from './oauth-client.ts';

/** Wire type of the managed provider. */
export const MANAGED_TYPE = 'svc';

const tables = (doc: Doc, key: string): Record<string, Doc> => (isTable(doc[key]) ? (doc[key] as Record<string, Doc>) : {});

/** Alias ids of a provider's models in a raw document. */
export function aliasesOf(doc: Doc, provider: string): string[] {
  return Object.entries(tables(doc, 'models')).filter(([, m]) => isTable(m) && m.provider === provider).map(([alias]) => alias);
}

function modelEntry(provider: string, m: ModelList['models'][number], previous?: Doc): Doc {
  return compact({
    provider,
    model: m.model,
    max_context_size: m.max_context_size,
    max_output_size: m.max_output_size,
    display_name: m.display_name,
    capabilities: m.capabilities,
    support_efforts: m.support_efforts,
    default_effort: m.default_effort,
    // User overrides survive a re-login like they survive a refresh.
    overrides: isTable(previous?.overrides) ? previous.overrides : undefined,
  });
}

/**
 * Writes `[providers.<name>]` (type svc, base_url, the credential reference) and its
 * `<name>/<model>` aliases, rebuilt from the host's list; seeds `default_model` when absent.
 */
export function writeManagedProvider(config: ConfigService, provider: string, list: ModelList): Promise<Doc> {
  return config.mutate((doc) => {
    const providers = { ...tables(doc, 'providers') };
    const previous = isTable(providers[provider]) ? providers[provider] : {};
    const { api_key: _dropped, ...kept } = previous;
    providers[provider] = { ...kept, type: MANAGED_TYPE, base_url: list.base_url, oauth: { storage: 'file', key: provider } };
    const models = { ...tables(doc, 'models') };
    const old = Object.fromEntries(aliasesOf(doc, provider).map((a) => [a, models[a]]));
    for (const alias of Object.keys(old)) delete models[alias];
    for (const m of list.models) {
      const alias = `${provider}/${m.model}`;
      models[alias] = modelEntry(provider, m, old[alias]);
    }
    const next: Doc = { ...doc, providers, models };
    if (typeof doc.default_model !== 'string' || !doc.default_model) {
      const first = list.models.find((m) => m.model === list.default_model) ?? list.models[0];
      if (first) next.default_model = `${provider}/${first.model}`;
    }
    return next;
  });
}

/** Logout: removes `[providers.<name>]` and its aliases. Global default pointers are left alone, as DELETE /providers does. */
export function removeManagedProvider(config: ConfigService, provider: string): Promise<Doc> {
  return config.mutate((doc) => {
    const providers = { ...tables(doc, 'providers') };
    const models = { ...tables(doc, 'models') };
    for (const alias of aliasesOf(doc, provider)) delete models[alias];
    delete providers[provider];
    return { ...doc, providers, models };
  });
}
