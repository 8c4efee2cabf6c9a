import { createReadStream } from 'node:fs';
import type { Stats } from 'node:fs';
import etag from 'etag';
import fresh from 'fresh';
import type Koa from 'koa';
import mime from 'mime-types';
import rangeParser from 'range-parser';

export interface SendFileOptions {
  /** Answer 304 when If-None-Match matches (false for GET /files/{id}, which ignores it). */
  conditional: boolean;
  contentType?: string;
  /** `attachment; filename=...` when set. */
  downloadName?: string;
  /**
   * Answer an unsatisfiable Range with 416. Off for the routes that report every
   * failure through the envelope (Part B "Binary and streaming endpoints"): they
   * ignore such a Range and send the whole file, as HTTP allows.
   */
  strictRange?: boolean;
}

/**
 * Streams a file with Range (206/416) and ETag support. The caller has
 * already resolved and authorised `file` and stat-ed it.
 */
export function sendFile(ctx: Koa.Context, file: string, st: Stats, opts: SendFileOptions): void {
  const tag = etag(st);
  ctx.set('ETag', tag);
  ctx.set('Last-Modified', st.mtime.toUTCString());
  ctx.set('Accept-Ranges', 'bytes');
  ctx.type = opts.contentType ?? (mime.lookup(file) || 'application/octet-stream');
  if (opts.downloadName) ctx.attachment(opts.downloadName);
  if (opts.conditional && fresh(ctx.req.headers, { etag: tag, 'last-modified': st.mtime.toUTCString() })) {
    ctx.status = 304;
    return;
  }
  const header = ctx.get('Range');
  if (header && st.size > 0) {
    const ranges = rangeParser(st.size, header, { combine: true });
    if (ranges === -1 && opts.strictRange) {
      // Body first: koa turns a null body into 204 unless the status is set afterwards.
      ctx.body = null;
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${st.size}`);
      return;
    }
    if (ranges !== -1 && ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
      const { start, end } = ranges[0];
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${start}-${end}/${st.size}`);
      ctx.length = end - start + 1;
      ctx.body = createReadStream(file, { start, end });
      return;
    }
  }
  ctx.status = 200;
  ctx.length = st.size;
  ctx.body = createReadStream(file);
}
