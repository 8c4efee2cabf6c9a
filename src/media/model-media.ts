import { readFile } from 'node:fs/promises';
import type { ImagePart, TextPart, VideoPart, WireType } from '../providers/wire/types.ts';
import type { MediaFiles } from './file-part.ts';
import { imageLimits, rawBytesFor, type ImageLimits } from './images/limits.ts';
import type { ImagePipeline } from './images/pipeline.ts';
import { findSessionMedia } from './session-media.ts';

/** Where a request's media is read from, and the pipeline that fits its images. */
export interface ModelMediaFiles extends MediaFiles {
  images: ImagePipeline;
}

/** The model a request goes to, as far as its media is concerned (a ModelClient is one). */
export interface MediaModel {
  wireType: WireType;
  capabilities: readonly string[];
}

/** A journaled image or video part: its `source`; `full_resolution` (Read's read-back) lifts `[image] max_edge_px`. */
export interface StoredMediaPart { source?: any; full_resolution?: boolean }

type Slot = { into: unknown[]; at: number; kind: 'image' | 'video'; part: StoredMediaPart };

export const NO_IMAGE_INPUT = '[image omitted: model has no image input]';
export const NO_VIDEO_INPUT = '[video omitted: model has no video input]';

const labelOf = (s: any) => String(s?.file_id ?? (s?.kind === 'base64' ? 'inline' : s?.url) ?? 'unknown');

/**
 * The images and videos of one model request. Parts are placed while the history is walked
 * (`image`, `video` leave a placeholder), then `resolve` fills them newest first, so when the
 * request would pass the provider's limits it is the oldest that become notes. A model without
 * `image_in` (or `video_in`) gets a note in place of each; an image that cannot be read or
 * decoded gets a note too, never a request the provider refuses.
 */
export class RequestMedia {
  private readonly slots: Slot[] = [];

  constructor(private readonly files: ModelMediaFiles, private readonly sessionId: string, private readonly model?: MediaModel) {}

  private accepts(cap: string): boolean {
    return !this.model || this.model.capabilities.includes(cap);
  }

  image(part: StoredMediaPart, into: Array<TextPart | ImagePart | VideoPart>): void {
    if (!this.accepts('image_in')) return void into.push({ type: 'text', text: NO_IMAGE_INPUT });
    this.slots.push({ into, at: into.push({ type: 'text', text: '' }) - 1, kind: 'image', part });
  }

  video(part: StoredMediaPart, into: Array<TextPart | ImagePart | VideoPart>): void {
    if (!this.accepts('video_in')) return void into.push({ type: 'text', text: NO_VIDEO_INPUT });
    this.slots.push({ into, at: into.push({ type: 'text', text: '' }) - 1, kind: 'video', part });
  }

  async resolve(): Promise<void> {
    const limits = imageLimits(this.model?.wireType);
    const images = this.slots.filter((s) => s.kind === 'image').length;
    const edge = images > limits.manyImages ? limits.manyImagesEdgePx : limits.maxEdgePx;
    const configured = this.files.images.maxEdgePx();
    let count = 0;
    let bytes = 0;
    for (const slot of [...this.slots].reverse()) {
      const label = labelOf(slot.part.source);
      let out: TextPart | ImagePart | VideoPart;
      if (count >= limits.maxImages) out = { type: 'text', text: `[${slot.kind} ${label} omitted: the request already holds ${limits.maxImages} images and videos]` };
      else out = slot.kind === 'image'
        ? await this.fitted(slot.part, slot.part.full_resolution ? edge : Math.min(edge, configured), limits)
        : await this.videoOf(slot.part, limits);
      if (out.type !== 'text' && !/^https?:/.test(out.data)) {
        if (bytes + out.data.length > limits.requestBase64Bytes) out = { type: 'text', text: `[earlier ${slot.kind} ${label} omitted: the request's media would pass the provider's size limit]` };
        else bytes += out.data.length;
      }
      if (out.type !== 'text') count++;
      slot.into[slot.at] = out;
    }
  }

  private async fitted(part: StoredMediaPart, maxEdgePx: number, limits: ImageLimits): Promise<TextPart | ImagePart> {
    const s = part.source ?? {};
    const label = labelOf(s);
    // A URL is fetched by the provider: it cannot be measured or scaled here.
    if (s.kind === 'url') return { type: 'image', data: String(s.url), mediaType: 'image/*' };
    const found = await this.locate(s);
    if (!found) return { type: 'text', text: `[image unavailable: ${label}]` };
    const r = await this.files.images.fit({ ...found, maxEdgePx, maxBytes: rawBytesFor(limits.maxBase64Bytes) });
    if (!r.ok) return { type: 'text', text: `[image ${label} not sent: ${r.reason}]` };
    return { type: 'image', data: r.data, mediaType: r.mediaType };
  }

  private async videoOf(part: StoredMediaPart, limits: ImageLimits): Promise<TextPart | VideoPart> {
    const s = part.source ?? {};
    if (s.kind === 'url') return { type: 'video', data: String(s.url), mediaType: 'video/*' };
    const found = await this.locate(s);
    if (!found) return { type: 'text', text: `[video unavailable: ${labelOf(s)}]` };
    try {
      const bytes = await found.load();
      if (bytes.length > rawBytesFor(limits.requestBase64Bytes)) return { type: 'text', text: `[video ${labelOf(s)} not sent: ${bytes.length} bytes is over the provider's request limit]` };
      return { type: 'video', data: bytes.toString('base64'), mediaType: found.mediaType };
    } catch {
      return { type: 'text', text: `[video unavailable: ${labelOf(s)}]` };
    }
  }

  /** The bytes behind a source: the session's committed media, else (older prompts) the upload, or inline base64. */
  private async locate(s: any): Promise<{ load(): Promise<Buffer>; identity?: string; mediaType: string } | undefined> {
    try {
      if (s.kind === 'base64') return { load: async () => Buffer.from(String(s.data), 'base64'), mediaType: String(s.media_type) };
      const id = String(s.file_id);
      const committed = await findSessionMedia(this.files, this.sessionId, id);
      if (committed) {
        const { path, stat } = committed;
        return { load: () => readFile(path), identity: `${path}|${stat.size}|${stat.mtimeMs}`, mediaType: committed.meta.media_type };
      }
      if (s.kind !== 'file') return undefined;
      const up = await this.files.uploads.lookup(id);
      return { load: () => readFile(up.path), identity: `${up.path}|${up.stat.size}|${up.stat.mtimeMs}`, mediaType: up.meta.media_type };
    } catch {
      // Deleted or expired since the prompt was accepted: a note, not a failed turn.
      return undefined;
    }
  }
}
