import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { MarketplaceEntry, PluginSummary } from '../../protocol/schemas/plugins.ts';
import type { CapabilityStatus } from '../../protocol/schemas/capabilities.ts';
import type { ConfigService } from '../config/service.ts';
import { plainHttpAllowed } from './sources.ts';
import { readBoundedBody } from '../lib/bounded-body.ts';

/** Catalog fetch timeout (Part B). */
export const MARKETPLACE_TIMEOUT_MS = 10_000;
/** Largest catalog read, and most entries kept. */
const CATALOG_MAX_BYTES = 5 * 1024 * 1024;
const CATALOG_MAX_ENTRIES = 5000;

export interface MarketplaceDeps {
  config: ConfigService;
  plugins: { list(): Promise<PluginSummary[]>; readonly allowsLoopbackHttp: boolean };
  capabilities: { list(): CapabilityStatus[] };
}

const TIERS = ['official', 'curated', 'third-party'] as const;
const str = (x: unknown) => (typeof x === 'string' && x ? x : undefined);

/** One catalog row as published, or undefined when it lacks what a row needs. */
function readRow(x: unknown): MarketplaceEntry | undefined {
  if (!x || typeof x !== 'object') return undefined;
  const o = x as Record<string, unknown>;
  const id = str(o.id);
  const source = str(o.source);
  if (!id || !source) return undefined;
  const tier = TIERS.includes(o.tier as (typeof TIERS)[number]) ? (o.tier as MarketplaceEntry['tier']) : 'third-party';
  const keywords = Array.isArray(o.keywords) ? o.keywords.filter((k): k is string => typeof k === 'string') : undefined;
  return {
    id, tier, displayName: str(o.displayName) ?? id, source,
    ...(str(o.description) ? { description: str(o.description) } : {}), ...(str(o.homepage) ? { homepage: str(o.homepage) } : {}),
    ...(keywords?.length ? { keywords } : {}), ...(str(o.version) ? { version: str(o.version) } : {}),
    ...(str(o.capabilityId) ? { capabilityId: str(o.capabilityId) } : {}),
  };
}

/** Whether `a` is a newer version than `b` (dotted numbers compared numerically, else as text). */
function newer(a: string, b: string): boolean {
  const pa = a.replace(/^v/, '').split(/[.-]/);
  const pb = b.replace(/^v/, '').split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    const nx = Number(x);
    const ny = Number(y);
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) {
      if (nx !== ny) return nx > ny;
    } else if (x !== y) return x > y;
  }
  return false;
}

async function fetchCatalog(url: string, allowLoopbackHttp: boolean): Promise<unknown[]> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('the configured marketplace URL is not a URL');
  }
  if (u.protocol !== 'https:' && !plainHttpAllowed(u, allowLoopbackHttp)) throw new Error('the marketplace URL must be https');
  const res = await fetch(u, { signal: AbortSignal.timeout(MARKETPLACE_TIMEOUT_MS), headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const body = await readBoundedBody(res, CATALOG_MAX_BYTES, () => new Error('catalog too large'));
  const doc = JSON.parse(body.toString('utf8')) as unknown;
  const rows = Array.isArray(doc) ? doc : (doc as { entries?: unknown; plugins?: unknown })?.entries ?? (doc as { plugins?: unknown })?.plugins;
  if (!Array.isArray(rows)) throw new Error('catalog has no entries array');
  return rows.slice(0, CATALOG_MAX_ENTRIES);
}

/**
 * GET /plugins/marketplace (docs/plugins.md): the catalog fetched on every request (10 s timeout,
 * 50001 on failure), merged with install state; rows of capabilities unsupported here are dropped,
 * and with the default catalog the built-in capabilities it lacks are added as rows.
 */
export async function marketplace(deps: MarketplaceDeps): Promise<MarketplaceEntry[]> {
  const { marketplace_url: url, default_catalog: isDefault } = deps.config.current().plugins;
  let rows: unknown[];
  try {
    rows = await fetchCatalog(url, deps.plugins.allowsLoopbackHttp);
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${MARKETPLACE_TIMEOUT_MS / 1000} s` : (err as Error).message;
    throw new ApiError(Codes.INTERNAL, `marketplace catalog fetch failed: ${why}`, { details: { reason: why } });
  }
  const installed = new Map((await deps.plugins.list()).map((p) => [p.id, p]));
  const caps = new Map(deps.capabilities.list().map((c) => [c.id, c]));
  const entries: MarketplaceEntry[] = [];
  const seen = new Set<string>();
  for (const raw of rows) {
    const row = readRow(raw);
    if (!row || seen.has(row.id)) continue;
    if (row.capabilityId && caps.get(row.capabilityId)?.supported === false) continue;
    seen.add(row.id);
    entries.push(withState(row, installed.get(row.id), row.capabilityId ? caps.get(row.capabilityId) : undefined));
  }
  if (isDefault) {
    const listed = new Set(entries.map((e) => e.capabilityId).filter(Boolean));
    for (const c of caps.values()) {
      if (listed.has(c.id) || !c.supported) continue;
      entries.push(withState({ id: c.id, tier: 'official', displayName: c.displayName, description: c.description, source: `capability:${c.id}`, capabilityId: c.id }, undefined, c));
    }
  }
  return entries;
}

function withState(row: MarketplaceEntry, plugin: PluginSummary | undefined, cap: CapabilityStatus | undefined): MarketplaceEntry {
  if (cap) {
    const on = cap.state === 'ready' || cap.state === 'partial';
    return on ? { ...row, installed: { ...(cap.version ? { version: cap.version } : {}), enabled: true }, updateAvailable: !!(row.version && cap.version && newer(row.version, cap.version)) } : row;
  }
  if (!plugin) return row;
  return {
    ...row, installed: { ...(plugin.version ? { version: plugin.version } : {}), enabled: plugin.enabled },
    updateAvailable: !!(row.version && plugin.version && newer(row.version, plugin.version)),
  };
}
