import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import mime from 'mime-types';
import etag from 'etag';
import fresh from 'fresh';
import type Koa from 'koa';
import { isApiPath } from './request-path.ts';

/**
 * The web UI's static assets on every non-/api path (core.md Authentication 1: no token needed).
 * Built by Vite into dist/web (scripts/build.mjs); see docs/web-ui.md.
 *
 * - `/assets/*` carry a content hash in their name: cached a year, immutable.
 * - `index.html` (and every other file) is `no-cache`; other files are revalidated by ETag, HTML
 *   documents carry a fresh CSP nonce per response, so they have no ETag and never answer 304.
 * - A GET for a path with no file and no extension is a client route: index.html (SPA fallback).
 *   Never for /api/*, /openapi.json, /asyncapi.json (isApiPath), nor under the first segment of any
 *   other route the daemon serves outside /api (`reserved`: /oauth/mcp/callback), in any spelling,
 *   nor for a missing file with an extension (a missing asset is a 404, not HTML served as script).
 * - Every HTML answer carries a strict Content-Security-Policy: scripts, styles, fonts, images and
 *   connections from this origin only (plus data:/blob: images), no inline script, no framing.
 *   Two style exceptions, for the terminal (@xterm/xterm's DOM renderer, docs/web-ui.md "CSP"):
 *   `<style>` elements carrying this response's nonce (handed to the page in
 *   `<meta property="csp-nonce" nonce>`; the UI stamps it on the style elements xterm creates), and
 *   style attributes (`style-src-attr 'unsafe-inline'`: xterm colours 24-bit colour cells with them).
 *   Scripts stay `'self'` only.
 * - `--web-title` replaces the `<title>` of index.html, HTML-escaped.
 */

/** The CSP of an HTML answer; `nonce` admits the `<style>` elements the page stamps with it. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const NO_CACHE = 'no-cache';
/** Asset files larger than this are not served (the built UI is far smaller); bounds memory per request. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** dist/web of this package, found from this module in src/ (tsx) or dist/src/ (built). */
export function defaultWebRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'web');
    dir = path.dirname(dir);
  }
  return path.resolve('dist', 'web');
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A file as served: its bytes and ETag, or for an HTML document its two halves (a response is `before + meta + after`). */
type Loaded =
  | { type: string; body: Buffer; etag: string; html?: undefined }
  | { type: string; html: { before: Buffer; after: Buffer } };

/** HTML documents kept split (index.html and any other page of the build): a page a response is a join. */
const MAX_PAGES = 64;

/** Resolves a request path to a file inside root, or undefined (outside the root, a dotfile, not a file). */
async function fileFor(root: string, urlPath: string): Promise<string | undefined> {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (rel.includes('\0')) return undefined;
  const segments = rel.split('/').filter((s) => s !== '');
  if (segments.some((s) => s.startsWith('.'))) return undefined;
  const file = path.join(root, ...segments);
  if (file !== root && !file.startsWith(root + path.sep)) return undefined;
  try {
    const st = await stat(file);
    return st.isFile() && st.size <= MAX_FILE_BYTES ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The first segment of a path as isApiPath reads it: lower case, before any `/`, `%2f` or `;`. */
function firstSegment(p: string): string {
  return p.slice(1).split(/\/|%2f|;/i, 1)[0]!.toLowerCase();
}

/** First segments of the daemon's own routes outside /api: the static UI never answers under them. */
export function reservedSegments(routePaths: string[]): Set<string> {
  return new Set(routePaths.filter((p) => !isApiPath(p)).map(firstSegment));
}

export function staticMiddleware(opts: { root: string; title?: string; reserved?: Set<string> }): Koa.Middleware {
  const reserved = opts.reserved ?? new Set<string>();
  const root = path.resolve(opts.root);
  const index = path.join(root, 'index.html');
  // Hashed assets never change under one name. HTML documents are kept split around the nonce while their file
  // is unchanged (size, times, inode), so a rebuild shows at once; other files are re-read.
  const cache = new Map<string, Loaded>();
  const pages = new Map<string, { stamp: string; loaded: Loaded }>();

  async function read(file: string, type: string): Promise<Loaded> {
    let body = await readFile(file);
    if (file === index && opts.title !== undefined) {
      body = Buffer.from(body.toString('utf8').replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(opts.title)}</title>`));
    }
    return type.startsWith('text/html') ? { type, html: splitAtNonce(body) } : { type, body, etag: etag(body) };
  }

  async function load(file: string): Promise<Loaded> {
    const hit = cache.get(file);
    if (hit) return hit;
    const type = mime.contentType(path.extname(file)) || 'application/octet-stream';
    if (isHashed(root, file)) {
      const loaded = await read(file, type);
      cache.set(file, loaded);
      return loaded;
    }
    if (!type.startsWith('text/html')) return read(file, type);
    const st = await stat(file);
    const stamp = `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
    const page = pages.get(file);
    pages.delete(file);
    if (page?.stamp === stamp) {
      pages.set(file, page); // the most recently served page is the last to be dropped
      return page.loaded;
    }
    const loaded = await read(file, type);
    pages.set(file, { stamp, loaded });
    if (pages.size > MAX_PAGES) pages.delete(pages.keys().next().value!);
    return loaded;
  }

  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path) || reserved.has(firstSegment(ctx.path))) return next();
    let file = ctx.path === '/' ? index : await fileFor(root, ctx.path);
    if (!file) {
      const last = ctx.path.slice(ctx.path.lastIndexOf('/') + 1);
      // A client route (no extension): the SPA's index.html.
      if (last.includes('.')) return next();
      file = index;
    }
    let loaded: Loaded;
    try {
      loaded = await load(file);
    } catch {
      return next(); // not built: the ordinary 404 envelope
    }
    ctx.set('Cache-Control', isHashed(root, file) ? IMMUTABLE : NO_CACHE);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = loaded.type;
    if (loaded.html) {
      // A nonce per response (CSP3): the body changes each time, so no ETag and no 304.
      const nonce = randomBytes(16).toString('base64');
      ctx.set('Content-Security-Policy', contentSecurityPolicy(nonce));
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Frame-Options', 'DENY');
      ctx.status = 200;
      ctx.body = Buffer.concat([loaded.html.before, Buffer.from(`<meta property="csp-nonce" nonce="${nonce}" />`), loaded.html.after]);
      return;
    }
    ctx.set('ETag', loaded.etag);
    if (fresh(ctx.req.headers, { etag: loaded.etag })) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.body = loaded.body;
  };
}

function isHashed(root: string, file: string): boolean {
  return file.startsWith(path.join(root, 'assets') + path.sep);
}

/**
 * Where the page's nonce goes, as Vite's convention has it: `<meta property="csp-nonce" nonce="…">` first in `<head>`
 * (`<head>` or `<head attrs>`, not `<header>`); without a head, after the doctype (before it would mean quirks mode).
 */
function splitAtNonce(body: Buffer): { before: Buffer; after: Buffer } {
  const html = body.toString('utf8');
  const at = html.search(/<head(?:\s[^>]*)?>/i);
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  if (at < 0 && !doctype) return { before: Buffer.alloc(0), after: Buffer.from(html) };
  const end = at >= 0 ? html.indexOf('>', at) + 1 : doctype![0].length;
  return { before: Buffer.from(html.slice(0, end)), after: Buffer.from(html.slice(end)) };
}
