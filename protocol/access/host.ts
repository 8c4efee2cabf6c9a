import { isIP } from 'node:net';

/**
 * Who may call the daemon, decided from headers a browser cannot forge for another site:
 * `Host` (DNS rebinding) and `Origin` (cross-site requests). Built once at start.
 */
export interface AccessPolicy {
  /** The address the daemon is bound to (`--host`); a name given there is an allowed Host. */
  boundHost: string;
  /** Extra Host names: exact names, `.suffix` for a domain and its subdomains, or `*` for any. */
  allowedHosts: string[];
  /** Extra browser origins (`SVC_CODE_ALLOWED_ORIGINS`). */
  allowedOrigins: string[];
}

/** The environment's additions, read at start: `SVC_CODE_ALLOWED_HOSTS` / `_ORIGINS` as lists (src/app/settings.ts). */
export interface AccessAdditions {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

/** The policy of a daemon started with these options, plus the environment's hosts and origins. */
export function accessPolicy(opts: { host: string; allowedHosts?: string[] }, extra: AccessAdditions = { allowedHosts: [], allowedOrigins: [] }): AccessPolicy {
  return {
    boundHost: opts.host,
    allowedHosts: [...(opts.allowedHosts ?? []), ...extra.allowedHosts].map((h) => h.toLowerCase()),
    allowedOrigins: [...extra.allowedOrigins],
  };
}

/** `name`, `name:port`, `[v6]`, `[v6]:port` -> the host name without brackets, lower case. */
export function hostName(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0 || (end + 1 < h.length && !/^:\d*$/.test(h.slice(end + 1)))) return undefined;
    return h.slice(1, end);
  }
  const m = /^([^:]+)(?::\d*)?$/.exec(h);
  return m?.[1];
}

function nameAllowed(name: string, allowed: string[]): boolean {
  return allowed.some((a) => a === '*' || a === name || (a.startsWith('.') && (name.endsWith(a) || name === a.slice(1))));
}

/**
 * A Host header is trusted when it names the daemon in a way DNS rebinding cannot fake:
 * an IP literal, `localhost`, the bound host name, or a name the user allowed. No Host
 * at all (HTTP/1.0 tools) is not a browser, so it is accepted.
 */
export function isAllowedHost(header: string | undefined, policy: AccessPolicy): boolean {
  if (header === undefined || header === '') return true;
  const name = hostName(header);
  if (name === undefined) return false;
  if (isIP(name) !== 0 || name === 'localhost') return true;
  if (name === policy.boundHost.toLowerCase().replace(/^\[|\]$/g, '')) return true;
  return nameAllowed(name, policy.allowedHosts);
}

export function hostRefusal(header: string): { status: number; msg: string; details: Record<string, string> } {
  const name = hostName(header) ?? header;
  return {
    status: 403,
    msg: `host not allowed: ${name} (DNS-rebinding protection); to allow it, start with --allowed-host ${name} or set SVC_CODE_ALLOWED_HOSTS`,
    details: { host: name },
  };
}
