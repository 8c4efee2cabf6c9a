import { readFile } from 'node:fs/promises';
import { isTable } from '../../config/read.ts';

/** USD per million tokens. Cache prices default to the input price where a vendor bills no separate rate. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/** Token sums of one model (the usage projection keeps them per model alias). */
export interface TokenSums {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

const price = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined);

/**
 * Prices of well-known models, by the upstream model id (the `model` of a models-table entry), read from the
 * `cost` of the built-in catalog snapshot's models. The served catalog items do not carry them (the spec's
 * item has no price field); they only feed the usage object's `total_cost_usd`.
 */
export class ModelPricing {
  constructor(private readonly byModel: ReadonlyMap<string, ModelPrice>) {}

  /** Reads the snapshot's prices; a snapshot that cannot be read prices nothing (the cost is then absent). */
  static async load(snapshotPath: string): Promise<ModelPricing> {
    const prices = new Map<string, ModelPrice>();
    const doc: unknown = JSON.parse(await readFile(snapshotPath, 'utf8'));
    const items = isTable(doc) && Array.isArray(doc.items) ? doc.items : [];
    for (const item of items) {
      for (const m of isTable(item) && Array.isArray(item.models) ? item.models : []) {
        if (!isTable(m) || typeof m.id !== 'string' || !isTable(m.cost) || prices.has(m.id)) continue;
        const input = price(m.cost.input);
        const output = price(m.cost.output);
        if (input === undefined || output === undefined) continue;
        prices.set(m.id, { input, output, cache_read: price(m.cost.cache_read) ?? input, cache_write: price(m.cost.cache_write) ?? input });
      }
    }
    return new ModelPricing(prices);
  }

  of(upstreamModel: string): ModelPrice | undefined {
    return this.byModel.get(upstreamModel);
  }

  /**
   * The cost of token sums per model alias, or undefined when a model that used tokens has no known price
   * (an understated total would mislead) or when nothing was used. `upstream` maps an alias to its model id.
   */
  costUsd(sums: Readonly<Record<string, TokenSums>>, upstream: (alias: string) => string | undefined): number | undefined {
    let total = 0;
    let priced = false;
    for (const [alias, s] of Object.entries(sums)) {
      const id = upstream(alias);
      const p = id === undefined ? undefined : this.of(id);
      if (!p) return undefined;
      total += (s.input_tokens * p.input + s.output_tokens * p.output + s.cache_read_tokens * p.cache_read + s.cache_creation_tokens * p.cache_write) / 1e6;
      priced = true;
    }
    return priced ? Math.round(total * 1e6) / 1e6 : undefined;
  }
}
