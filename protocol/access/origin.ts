import { isAllowedHost, type AccessPolicy } from './host.ts';

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Browsers send `Origin`; a page of another site must not drive the daemon.
 * Allowed: no Origin (non-browser clients), loopback http(s) origins, the
 * daemon's own origin (same Host, when that Host is one the policy trusts: an IP
 * literal or a name the user allowed), non-web app schemes (IDE webviews, desktop
 * shells: no web site can send those), and any origin listed in SVC_CODE_ALLOWED_ORIGINS.
 */
export function isAllowedOrigin(origin: string | undefined, host: string | undefined, policy: AccessPolicy): boolean {
  if (!origin) return true;
  if (policy.allowedOrigins.includes(origin)) return true;
  if (origin === 'null') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return true;
  if (LOOPBACK_HOSTS.test(url.hostname)) return true;
  // The daemon's own page (http://<ip>:<port>, or a name the user allowed). A page reached
  // through any other name could be a DNS-rebinding attack that also controls Host.
  return Boolean(host) && url.host === host!.toLowerCase() && isAllowedHost(host, policy);
}
