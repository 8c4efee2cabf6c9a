import { createHash } from 'node:crypto';
import { ApiError, validationError } from '../../../protocol/errors.ts';
import { Codes } from '../../../protocol/codes.ts';

/**
 * A position in a sorted list: the sort key and the id of the last row served
 * (a session id in the flat view, a workspace id in the grouped view). Paging
 * resumes strictly after it, so rows inserted or removed before it never shift
 * later pages.
 */
export interface PagePosition {
  key: string;
  id: string;
}

interface TokenBody {
  v: 1;
  /** Fingerprint of the query conditions the token was minted under. */
  f: string;
  k: string;
  i: string;
}

/** Short stable hash of the (already canonical) query conditions. */
export function fingerprint(conditions: unknown): string {
  return createHash('sha256').update(JSON.stringify(conditions)).digest('base64url').slice(0, 22);
}

export function encodePageToken(fp: string, pos: PagePosition): string {
  const body: TokenBody = { v: 1, f: fp, k: pos.key, i: pos.id };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The position a token resumes at; 40001 when malformed, 40922 when minted under other conditions. */
export function decodePageToken(token: string, fp: string): PagePosition {
  const body = parse(token);
  if (!body) throw validationError([{ field: 'page_token', message: 'malformed page_token' }]);
  if (body.f !== fp) {
    throw new ApiError(Codes.PAGE_TOKEN_MISMATCH, 'page conditions mismatch page_token', {
      details: [{ field: 'page_token', message: 'query conditions changed since the token was issued; start again without page_token' }],
    });
  }
  return { key: body.k, id: body.i };
}

function parse(token: string): TokenBody | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  try {
    const body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<TokenBody>;
    const ok = body && body.v === 1 && typeof body.f === 'string' && typeof body.k === 'string' && typeof body.i === 'string';
    return ok ? (body as TokenBody) : undefined;
  } catch {
    return undefined;
  }
}
