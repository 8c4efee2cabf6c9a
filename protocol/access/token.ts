import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { Codes } from '../codes.ts';

export const BEARER_SUBPROTOCOL_PREFIX = 'svc-code.bearer.';

export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function bearerFrom(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return m?.[1]?.trim();
}


const WINDOW_MS = 60_000;
const MAX_FAILURES = 10;
const BAN_MS = 60_000;

/** Counts authentication failures per source; on non-loopback binds 10 in 60 s ban the source for 60 s. */
export class AuthBan {
  private failures = new Map<string, number[]>();
  private bannedUntil = new Map<string, number>();
  constructor(private readonly enabled: boolean, private readonly now: () => number = Date.now) {}

  isBanned(source: string): boolean {
    if (!this.enabled) return false;
    const until = this.bannedUntil.get(source);
    if (until === undefined) return false;
    if (this.now() < until) return true;
    this.bannedUntil.delete(source);
    return false;
  }

  recordFailure(source: string): void {
    if (!this.enabled) return;
    const now = this.now();
    const recent = (this.failures.get(source) ?? []).filter((t) => now - t < WINDOW_MS);
    recent.push(now);
    if (recent.length >= MAX_FAILURES) {
      this.bannedUntil.set(source, now + BAN_MS);
      this.failures.delete(source);
    } else {
      this.failures.set(source, recent);
    }
  }
}

export function bannedError(): ApiError {
  return new ApiError(Codes.AUTH_BANNED, 'too many authentication failures; banned for 60 s', { httpStatus: 429 });
}

export function unauthorizedError(): ApiError {
  return new ApiError(Codes.UNAUTHORIZED, 'unauthorized: missing or invalid bearer token', { httpStatus: 401 });
}
