import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isTable, type Doc } from '../config/read.ts';

import { REGIONS, type Region } from '../../protocol/schemas/enums.ts';

export { REGIONS, type Region };

/** The OAuth host of each region when none is pinned (docs/login.md). */
export const REGION_HOSTS: Record<Region, string> = {
  'mainland-cn': 'https://auth.svc-code.cn',
  global: 'https://auth.svc-code.com',
};

export const DEFAULT_REGION: Region = 'mainland-cn';
const DEFAULT_CLIENT_ID = 'svc-code-cli';
const DEFAULT_POLL_UNIT_MS = 1000;

/** The `[oauth]` table of config.toml plus its environment overrides, read per use. */
export interface OAuthSettings {
  /** Host pinned by `SVC_CODE_OAUTH_HOST` or `[oauth] host`, without a trailing slash. */
  pinnedHost?: string;
  /** `[oauth] region`: the configured region key. */
  region?: Region;
  clientId: string;
  /** Milliseconds per `interval` second of the device flow (1000; tests shrink it). */
  pollUnitMs: number;
}

/** The environment's word on the `[oauth]` table: a pinned host, the poll unit (as set; checked here). */
export interface OAuthEnv {
  host?: string;
  pollUnitMs?: string;
}

const isRegion = (x: unknown): x is Region => typeof x === 'string' && (REGIONS as readonly string[]).includes(x);
const trimHost = (h: string) => h.trim().replace(/\/+$/, '');

export function readOAuthSettings(raw: Doc, env: OAuthEnv): OAuthSettings {
  const t = isTable(raw.oauth) ? raw.oauth : {};
  const host = env.host?.trim() || (typeof t.host === 'string' ? t.host : '');
  const unit = Number(env.pollUnitMs ?? t.poll_unit_ms);
  return {
    pinnedHost: host ? trimHost(host) : undefined,
    region: isRegion(t.region) ? t.region : undefined,
    clientId: typeof t.client_id === 'string' && t.client_id ? t.client_id : DEFAULT_CLIENT_ID,
    pollUnitMs: Number.isFinite(unit) && unit > 0 ? unit : DEFAULT_POLL_UNIT_MS,
  };
}

/** The region a known host belongs to; undefined for any other host (a private deployment, a fixture). */
export function regionOfHost(host: string): Region | undefined {
  let name: string;
  try {
    name = new URL(host).hostname;
  } catch {
    return undefined;
  }
  return REGIONS.find((r) => new URL(REGION_HOSTS[r]).hostname === name);
}

export function regionFile(home: string): string {
  return path.join(home, 'region');
}

async function markerRegion(home: string): Promise<Region | undefined> {
  try {
    const text = (await readFile(regionFile(home), 'utf8')).trim();
    return isRegion(text) ? text : undefined;
  } catch {
    // No marker (or unreadable): the next rule decides.
    return undefined;
  }
}

/**
 * Core "GET /api/v1/oauth/region": a pinned host of a known region, then the
 * configured `[oauth] region`, then the `<home>/region` marker; default mainland-cn.
 */
export async function resolveRegion(home: string, s: OAuthSettings): Promise<Region> {
  const pinned = s.pinnedHost ? regionOfHost(s.pinnedHost) : undefined;
  return pinned ?? s.region ?? (await markerRegion(home)) ?? DEFAULT_REGION;
}

/** The host a login talks to: the pinned one, else the region's. */
export function hostFor(s: OAuthSettings, region: Region): string {
  return s.pinnedHost ?? REGION_HOSTS[region];
}
