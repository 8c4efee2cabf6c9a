import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../lib/logger.ts';
import { isTable, type Doc } from '../../config/read.ts';
import { Codes } from '../../../protocol/codes.ts';
import { ApiError, notFound } from '../../../protocol/errors.ts';

/** Core "GET /api/v1/catalog/providers" item. */
export interface CatalogModel {
  id: string;
  name?: string;
  max_context_size: number;
  capabilities?: string[];
  reasoning: boolean;
}

export interface CatalogEntry {
  id: string;
  name: string;
  wire_type: string | null;
  base_url: string | null;
  guessed: boolean;
  needs_base_url: boolean;
  rejected: boolean;
  reject_reason: string | null;
  env_key: string | null;
  models: CatalogModel[];
}

export const DEFAULT_DIRECTORY_URL = 'https://models.dev/api.json';
export const SNAPSHOT_PATH = fileURLToPath(new URL('./snapshot.json', import.meta.url));
const TYPES = ['svc', 'messages_api', 'chat_compat', 'chat_compat_responses', 'genai', 'cloud_ai'];
/** Part B model capabilities; others in a directory are dropped (they could not be written back through the API). */
const CAPS = ['thinking', 'always_thinking', 'image_in', 'video_in', 'audio_in', 'tool_use', 'dynamically_loaded_tools'];

/** SDK package of a models.dev-shaped entry -> our wire type. */
const NPM_WIRE: Record<string, string> = {
  '@ai-sdk/openai-compatible': 'chat_compat',
  '@ai-sdk/openai': 'chat_compat_responses',
  '@ai-sdk/anthropic': 'messages_api',
  '@ai-sdk/google': 'genai',
  '@ai-sdk/google-vertex': 'cloud_ai',
};
/** Vendors whose SDK has a fixed endpoint when the entry names none. */
const KNOWN_BASE: Record<string, string> = {
  chat_compat_responses: 'https://api.openai.com/v1',
  messages_api: 'https://api.anthropic.com/v1',
  genai: 'https://generativelanguage.googleapis.com/v1beta',
};

const str = (x: unknown) => (typeof x === 'string' && x ? x : null);
const strs = (x: unknown) => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);

function ourModel(m: Doc): CatalogModel | undefined {
  const ctx = m.max_context_size;
  if (typeof m.id !== 'string' || !m.id || typeof ctx !== 'number' || !Number.isInteger(ctx) || ctx < 1) return undefined;
  const caps = strs(m.capabilities).filter((c) => CAPS.includes(c));
  return JSON.parse(JSON.stringify({ id: m.id, name: str(m.name) ?? undefined, max_context_size: ctx, capabilities: caps.length ? caps : undefined, reasoning: m.reasoning === true }));
}

/** An entry already in our item shape (snapshots, registries). */
function fromItem(e: Doc): CatalogEntry | undefined {
  if (typeof e.id !== 'string' || !e.id) return undefined;
  const wire = str(e.wire_type);
  return {
    id: e.id, name: str(e.name) ?? e.id,
    wire_type: wire && TYPES.includes(wire) ? wire : null,
    base_url: str(e.base_url), guessed: e.guessed === true, needs_base_url: e.needs_base_url === true,
    rejected: e.rejected === true || !(wire && TYPES.includes(wire)), reject_reason: str(e.reject_reason) ?? (wire && TYPES.includes(wire) ? null : 'no supported wire protocol'),
    env_key: str(e.env_key),
    models: (Array.isArray(e.models) ? e.models : []).filter(isTable).map(ourModel).filter((m): m is CatalogModel => !!m),
  };
}

function fromModelsDevModel(m: Doc, key: string): CatalogModel | undefined {
  const limit = isTable(m.limit) ? m.limit : {};
  const inputs = isTable(m.modalities) ? strs(m.modalities.input) : [];
  const caps = [
    ...(m.reasoning === true ? ['thinking'] : []),
    ...(inputs.includes('image') ? ['image_in'] : []),
    ...(inputs.includes('video') ? ['video_in'] : []),
    ...(inputs.includes('audio') ? ['audio_in'] : []),
    ...(m.tool_call === true ? ['tool_use'] : []),
  ];
  return ourModel({ id: str(m.id) ?? key, name: m.name, max_context_size: limit.context, capabilities: caps, reasoning: m.reasoning === true });
}

/** A models.dev-shaped provider (`{id, name, npm, api, env, models:{...}}`): the wire type is resolved from its SDK package. */
function fromModelsDev(p: Doc, key: string): CatalogEntry | undefined {
  const id = str(p.id) ?? key;
  if (!id) return undefined;
  const npm = str(p.npm) ?? '';
  const api = str(p.api);
  let wire: string | null = NPM_WIRE[npm] ?? null;
  const guessed = !wire && !!api;
  if (guessed) wire = 'chat_compat';
  const base = api ?? (wire ? KNOWN_BASE[wire] ?? null : null);
  const env = strs(p.env);
  const models = isTable(p.models) ? Object.entries(p.models).filter(([, m]) => isTable(m)).map(([k, m]) => fromModelsDevModel(m as Doc, k)) : [];
  return {
    id, name: str(p.name) ?? id, wire_type: wire, base_url: wire ? base : null, guessed,
    needs_base_url: !!wire && !base, rejected: !wire, reject_reason: wire ? null : `unsupported SDK: ${npm || '(none)'}`,
    env_key: env.find((n) => /KEY/i.test(n)) ?? env[0] ?? null,
    models: models.filter((m): m is CatalogModel => !!m),
  };
}

/**
 * Parses a directory: our item shape (an array, `{items}` or an envelope) or a
 * models.dev-shaped object keyed by provider id. Throws when nothing parses.
 */
export function parseDirectory(json: unknown): CatalogEntry[] {
  let x = json;
  if (isTable(x) && 'code' in x && isTable(x.data)) x = x.data;
  if (isTable(x) && Array.isArray(x.items)) x = x.items;
  const pairs: [string, unknown][] = Array.isArray(x) ? x.map((e) => ['', e]) : isTable(x) ? Object.entries(x) : [];
  const out: CatalogEntry[] = [];
  for (const [key, e] of pairs) {
    if (!isTable(e)) continue;
    const entry = 'wire_type' in e ? fromItem(e) : fromModelsDev(e, key);
    if (entry) out.push(entry);
  }
  if (!out.length) throw new Error('no directory entries');
  return out;
}

/** GETs a directory JSON with a timeout; `bearer` is sent as Authorization. */
export async function fetchDirectory(url: string, timeoutMs: number, bearer?: string): Promise<CatalogEntry[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { Accept: 'application/json', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) } });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return parseDirectory(await res.json());
}

export interface DirectoryOptions {
  url: string;
  snapshotPath: string;
  log: Logger;
  ttlMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * The public model directory, proxied: a live fetch cached 10 minutes; when it
 * fails, the snapshot shipped in the repo answers (cached 1 minute, so the live
 * source is retried soon without every request waiting for a timeout).
 */
export class ModelDirectory {
  private cache?: { until: number; entries: CatalogEntry[] };
  private inflight?: Promise<CatalogEntry[]>;
  private readonly ttl: number;
  private readonly timeout: number;
  private readonly now: () => number;

  constructor(private readonly opts: DirectoryOptions) {
    this.ttl = opts.ttlMs ?? 10 * 60_000;
    this.timeout = opts.timeoutMs ?? 5000;
    this.now = opts.now ?? Date.now;
  }

  list(): Promise<CatalogEntry[]> {
    if (this.cache && this.cache.until > this.now()) return Promise.resolve(this.cache.entries);
    this.inflight ??= this.load().finally(() => { this.inflight = undefined; });
    return this.inflight;
  }

  /** The next read fetches live again (a refresh re-discovers; it must not see a stale cache). */
  invalidate(): void {
    this.cache = undefined;
  }

  async get(id: string): Promise<CatalogEntry> {
    const entry = (await this.list()).find((e) => e.id === id);
    if (!entry) throw notFound(Codes.CATALOG_ENTRY_NOT_FOUND, 'catalog entry', id);
    return entry;
  }

  private async load(): Promise<CatalogEntry[]> {
    try {
      const entries = await fetchDirectory(this.opts.url, this.timeout);
      this.cache = { until: this.now() + this.ttl, entries };
      return entries;
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'model directory unavailable; using the built-in snapshot');
    }
    try {
      const entries = parseDirectory(JSON.parse(await readFile(this.opts.snapshotPath, 'utf8')));
      this.cache = { until: this.now() + Math.min(this.ttl, 60_000), entries };
      return entries;
    } catch (err) {
      this.opts.log.error({ err: (err as Error).message }, 'model directory snapshot unreadable');
      throw new ApiError(Codes.MODEL_DIRECTORY_UNAVAILABLE, 'model directory unavailable (live fetch and snapshot both failed)');
    }
  }
}
