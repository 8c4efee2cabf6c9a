/**
 * The one spelling of a request path that routing and the token guard both see.
 *
 * The router matches case-sensitively and strictly (no trailing-slash leniency), so a
 * route matches only its canonical spelling; the guard decides on the same value, and
 * decides case-insensitively, so a spelling the router does not serve is still guarded
 * (never served unguarded). Spellings that would make two paths mean one resource to a
 * file system or a proxy (empty or dot segments) are refused outright.
 */

/** RFC 3986 unreserved characters: decoding their escapes never changes a URI's meaning. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

export type CanonicalPath = { ok: true; path: string } | { ok: false; reason: string };

/** `%61pi` -> `api`; reserved escapes such as `%2F` stay as they are (they belong to a segment). */
function decodeUnreserved(raw: string): string | undefined {
  let bad = false;
  const out = raw.replace(/%([0-9A-Fa-f]{2})?/g, (match, hex: string | undefined) => {
    if (hex === undefined) {
      bad = true;
      return match;
    }
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
  return bad ? undefined : out;
}

/** Decides what a request's path is, or why it has no canonical spelling. */
export function canonicalPath(raw: string): CanonicalPath {
  if (!raw.startsWith('/')) return { ok: false, reason: 'the request target must be an absolute path' };
  const path = decodeUnreserved(raw);
  if (path === undefined) return { ok: false, reason: 'malformed percent-encoding' };
  if (path === '/') return { ok: true, path };
  const segments = path.slice(1).split('/');
  // A trailing slash leaves one empty last segment: not a canonical route, but not ambiguous either.
  const inner = segments[segments.length - 1] === '' ? segments.slice(0, -1) : segments;
  if (inner.some((s) => s === '')) return { ok: false, reason: 'empty path segment (//)' };
  if (inner.some((s) => s === '.' || s === '..')) return { ok: false, reason: 'dot segment (. or ..)' };
  return { ok: true, path };
}

const API_FIRST_SEGMENTS = new Set(['api', 'openapi.json', 'asyncapi.json']);

/**
 * API paths: every spelling of `/api/...` and of the two served specs, whatever the case,
 * whatever `;params` ride on the first segment and however its slash is escaped. Wider than
 * the routes on purpose.
 */
export function isApiPath(path: string): boolean {
  const first = path.slice(1).split(/\/|%2f|;/i, 1)[0].toLowerCase();
  return API_FIRST_SEGMENTS.has(first);
}

export const HEALTHZ_PATH = '/api/v1/healthz';
