import { createHash } from 'node:crypto';
import type { Logger } from '../../lib/logger.ts';
import { fitImage, ImageDecodeError, ImageTooLargeError, type Region } from './encode.ts';

/** One image to fit: its bytes (read only when the result is not cached) and the bounds. */
export interface FitRequest {
  load(): Promise<Buffer>;
  /**
   * What names these exact bytes without reading them (a stored file's path, size and mtime):
   * with it, a cached result is found with no read and no hash.
   */
  identity?: string;
  maxEdgePx?: number;
  maxBytes: number;
  region?: Region;
}

/** A fitted image as a request carries it. */
export interface PreparedImage {
  ok: true;
  /** Base64, no `data:` prefix. */
  data: string;
  mediaType: string;
  width: number;
  height: number;
  source: { width: number; height: number; format: string };
}

/** Why an image cannot be sent (undecodable, or too large at any size): the request carries a note instead. */
export interface UnusableImage { ok: false; reason: string }

export type FitResult = PreparedImage | UnusableImage;

export interface ImagePipelineDeps {
  log: Logger;
  /** The `[image]` settings (config.current().image). */
  settings(): { max_edge_px: number };
  /** Base64 characters of results kept; default 64 MiB. */
  cacheBytes?: number;
}

/** Results kept (base64 characters) by default: a long session's screenshots, each encoded once. */
const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
const IDENTITIES = 4096;

/**
 * Fits images for model requests and remembers the results by content hash and bounds, so a
 * step re-sends the history's images without decoding or encoding any of them again. One per
 * daemon (built in startServer); the stored media themselves are never changed.
 */
export class ImagePipeline {
  private readonly results = new Map<string, FitResult>();
  private readonly hashes = new Map<string, string>();
  private readonly inflight = new Map<string, Promise<FitResult>>();
  private bytes = 0;
  private readonly capacity: number;

  constructor(private readonly deps: ImagePipelineDeps) {
    this.capacity = deps.cacheBytes ?? DEFAULT_CACHE_BYTES;
  }

  /** Part B `[image] max_edge_px`, as configured now. */
  maxEdgePx(): number {
    return this.deps.settings().max_edge_px;
  }

  async fit(req: FitRequest): Promise<FitResult> {
    const bounds = `${req.maxEdgePx ?? 0}|${req.maxBytes}|${req.region ? [req.region.x, req.region.y, req.region.width, req.region.height].join(',') : ''}`;
    const known = req.identity !== undefined ? this.hashes.get(req.identity) : undefined;
    if (known !== undefined) {
      const hit = this.get(`${known}|${bounds}`);
      if (hit) return hit;
    }
    let input: Buffer;
    try {
      input = await req.load();
    } catch (err) {
      return { ok: false, reason: `unreadable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
    }
    const hash = createHash('sha256').update(input).digest('hex');
    if (req.identity !== undefined) this.remember(req.identity, hash);
    const key = `${hash}|${bounds}`;
    const hit = this.get(key);
    if (hit) return hit;
    let running = this.inflight.get(key);
    if (!running) {
      running = this.compute(input, req).finally(() => this.inflight.delete(key));
      this.inflight.set(key, running);
      void running.then((r) => this.put(key, r));
    }
    return running;
  }

  private async compute(input: Buffer, req: FitRequest): Promise<FitResult> {
    try {
      const f = await fitImage(input, { maxBytes: req.maxBytes, ...(req.maxEdgePx ? { maxEdgePx: req.maxEdgePx } : {}), ...(req.region ? { region: req.region } : {}) });
      return { ok: true, data: f.bytes.toString('base64'), mediaType: f.mediaType, width: f.width, height: f.height, source: f.source };
    } catch (err) {
      if (err instanceof ImageDecodeError) return { ok: false, reason: 'not a decodable image' };
      if (err instanceof ImageTooLargeError) return { ok: false, reason: 'too large to send at any size' };
      this.deps.log.warn({ err }, 'image fit failed');
      return { ok: false, reason: 'could not be processed' };
    }
  }

  private get(key: string): FitResult | undefined {
    const hit = this.results.get(key);
    if (!hit) return undefined;
    // Re-insert: Map order is the LRU order.
    this.results.delete(key);
    this.results.set(key, hit);
    return hit;
  }

  private put(key: string, r: FitResult): void {
    if (this.results.has(key)) return;
    const size = r.ok ? r.data.length : 64;
    if (size > this.capacity) return;
    this.results.set(key, r);
    this.bytes += size;
    for (const [k, old] of this.results) {
      if (this.bytes <= this.capacity) break;
      this.results.delete(k);
      this.bytes -= old.ok ? old.data.length : 64;
    }
  }

  private remember(identity: string, hash: string): void {
    this.hashes.delete(identity);
    this.hashes.set(identity, hash);
    if (this.hashes.size > IDENTITIES) this.hashes.delete(this.hashes.keys().next().value!);
  }
}
