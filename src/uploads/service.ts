import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import mime from 'mime-types';
import type { EventJournal } from '../events/journal.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { Logger } from '../lib/logger.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound } from '../../protocol/errors.ts';
import { isMissing, UploadDisk } from './disk.ts';
import { DEFAULT_UPLOAD_LIMITS, FILE_ID_RE, type UploadLimits, type UploadMeta } from './types.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';

export interface UploadDeps {
  home: string;
  journal: EventJournal;
  clock: Clock;
  ids: Ids;
  log: Logger;
  limits?: UploadLimits;
}

export interface StoreInput {
  /** The multipart temp file; moved (not copied) into the store. */
  tempFile: string;
  name: string;
  /** Content type of the multipart part, if it had one. */
  partType?: string | null;
  /** Seconds until expiry; 0 or absent = never expires. */
  expiresInSec?: number;
}

export interface ResolvedUpload {
  meta: UploadMeta;
  /** Absolute path of the bytes. */
  path: string;
  stat: Stats;
}

/** How many ids that expired in this process are remembered, so lookups can tell "expired" (41003) from "unknown" (40407). */
const TOMBSTONE_CAP = 10_000;
const MEDIA_TYPE_RE = /^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/;

function mediaTypeOf(partType: string | null | undefined, name: string): string {
  if (partType && MEDIA_TYPE_RE.test(partType.trim())) return partType.trim();
  return mime.lookup(name) || 'application/octet-stream';
}

/**
 * Uploaded files (Part B "File uploads"): bytes and meta.json on disk under
 * <home>/uploads, an in-memory index loaded at start, facts journaled on the
 * global stream, and a sweeper that removes expired files.
 */
export class UploadService {
  readonly maxBytes: number;
  private readonly disk: UploadDisk;
  private readonly index = new Map<string, UploadMeta>();
  private readonly tombstones = new Set<string>();
  private timer?: NodeJS.Timeout;
  private firstSweep?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  private constructor(private readonly deps: UploadDeps, private readonly limits: UploadLimits) {
    this.maxBytes = limits.maxBytes;
    this.disk = new UploadDisk(deps.home, deps.ids.ulid());
  }

  static async open(deps: UploadDeps): Promise<UploadService> {
    const service = new UploadService(deps, deps.limits ?? DEFAULT_UPLOAD_LIMITS);
    await service.disk.prepare();
    for (const meta of await service.disk.loadAll()) service.index.set(meta.id, meta);
    service.startSweeper();
    return service;
  }

  /** Where multipart temp files must be written (same file system as the store, so moves are renames). */
  get incomingDir(): string {
    return this.disk.scratch;
  }

  async store(input: StoreInput): Promise<UploadMeta> {
    const now = this.deps.clock.now();
    const st = await stat(input.tempFile);
    const meta: UploadMeta = {
      id: this.deps.ids.next('file'),
      name: input.name,
      media_type: mediaTypeOf(input.partType, input.name),
      size: st.size,
      created_at: now.toISOString(),
    };
    if (input.expiresInSec) meta.expires_at = new Date(now.getTime() + input.expiresInSec * 1000).toISOString();
    await this.disk.commit(input.tempFile, meta);
    try {
      await this.deps.journal.append([{ stream: GLOBAL_STREAM, type: 'upload.stored', payload: meta }]);
    } catch (err) {
      await this.disk.discard(meta.id);
      throw err;
    }
    this.index.set(meta.id, meta);
    return meta;
  }

  /**
   * The upload's bytes, or why there are none. Touches disk with one stat
   * (plus a meta.json read for ids this process has not seen: another daemon
   * on the same home may have stored them). Storage errors are thrown.
   */
  async resolve(id: string): Promise<ResolvedUpload | 'unknown' | 'expired'> {
    if (!FILE_ID_RE.test(id)) return 'unknown';
    let meta = this.index.get(id);
    if (!meta) {
      meta = await this.disk.readMeta(id);
      if (!meta) return this.tombstones.has(id) ? 'expired' : 'unknown';
      this.index.set(id, meta);
    }
    if (this.isExpired(meta)) return 'expired';
    const path = this.disk.contentPath(id);
    try {
      return { meta, path, stat: await stat(path) };
    } catch (err) {
      if (!isMissing(err)) throw err;
      this.index.delete(id);
      return 'unknown';
    }
  }

  /** For prompt media (`{kind:file, file_id}`): 40407 for an unknown id, 41003 for an expired one. */
  async lookup(id: string): Promise<ResolvedUpload> {
    const r = await this.resolve(id);
    if (r === 'unknown') throw notFound(Codes.FILE_NOT_FOUND, 'file', id);
    if (r === 'expired') throw new ApiError(Codes.TEMP_FILE_EXPIRED, `temporary file expired: ${id}`, { details: { id } });
    return r;
  }

  /** Deletes an upload; false when it is unknown or already expired. */
  async remove(id: string): Promise<boolean> {
    const r = await this.resolve(id);
    if (typeof r === 'string') return false;
    const removed = await this.disk.discard(id);
    this.index.delete(id);
    if (!removed) return false;
    await this.deps.journal.append([{ stream: GLOBAL_STREAM, type: 'upload.deleted', payload: { id } }]);
    return true;
  }

  /** Removes every expired upload this process knows of; returns how many it removed. */
  async sweep(): Promise<number> {
    const due = [...this.index.values()].filter((m) => this.isExpired(m));
    const events: NewStreamEvent[] = [];
    try {
      for (const meta of due) {
        const removed = await this.disk.discard(meta.id);
        this.index.delete(meta.id);
        this.remember(meta.id);
        if (removed) events.push({ stream: GLOBAL_STREAM, type: 'upload.expired', payload: { id: meta.id, expires_at: meta.expires_at } });
      }
    } finally {
      // What was removed is journaled even when a later removal fails.
      if (events.length) await this.deps.journal.append(events);
    }
    return events.length;
  }

  /** Stops the sweeper (waiting for a running sweep) and drops this server's scratch space. */
  async close(): Promise<void> {
    clearTimeout(this.firstSweep);
    clearInterval(this.timer);
    await this.sweeping;
    await this.disk.dispose();
  }

  private isExpired(meta: UploadMeta): boolean {
    return meta.expires_at !== undefined && Date.parse(meta.expires_at) <= this.deps.clock.now().getTime();
  }

  private remember(id: string): void {
    this.tombstones.add(id);
    if (this.tombstones.size > TOMBSTONE_CAP) this.tombstones.delete(this.tombstones.values().next().value!);
  }

  private startSweeper(): void {
    const run = () => {
      this.sweeping ??= this.sweep()
        .then(() => undefined, (err) => this.deps.log.error({ err }, 'upload sweep failed; retrying next interval'))
        .finally(() => (this.sweeping = undefined));
    };
    this.timer = setInterval(run, this.limits.sweepIntervalMs);
    this.timer.unref();
    // Deferred a tick: open() resolves before the first sweep runs.
    this.firstSweep = setTimeout(run, 0);
    this.firstSweep.unref();
  }
}
