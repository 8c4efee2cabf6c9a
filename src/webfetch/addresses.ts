import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
/** A parsed `[services.pymodel_fetch] allowed_private_networks` entry. */
export type Network = [Address, number];

/** The fetch would reach an address the policy refuses (a private, loopback, link-local, ... address). */
export class BlockedAddressError extends Error {
  readonly code = 'EADDRBLOCKED';
}

/** Whether `entry` is an IP address or a CIDR range (the config check of `allowed_private_networks`). */
export function isNetwork(entry: string): boolean {
  return ipaddr.isValidCIDR(entry) || ipaddr.isValid(entry);
}

/** The entries as networks (a bare address is its own /32 or /128); invalid ones are left out (config warned). */
export function parseNetworks(entries: readonly string[]): Network[] {
  const out: Network[] = [];
  for (const e of entries) {
    if (ipaddr.isValidCIDR(e)) out.push(ipaddr.parseCIDR(e));
    else if (ipaddr.isValid(e)) {
      const a = ipaddr.parse(e);
      out.push([a, a.kind() === 'ipv4' ? 32 : 128]);
    }
  }
  return out;
}

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/**
 * The IPv4 address an IPv6 form carries (IPv4-mapped or -translated, NAT64 64:ff9b::/96, 6to4), judged as that
 * address: `::ffff:127.0.0.1` is loopback, `64:ff9b::808:808` is as public as 8.8.8.8.
 */
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = a.parts;
  switch (a.range() as string) {
    case 'ipv4Mapped': case 'rfc6145': case 'rfc6052': return v4(p[6]!, p[7]!);
    case '6to4': return v4(p[1]!, p[2]!);
    default: return undefined;
  }
}

/**
 * Public: ipaddr.js classifies it as ordinary unicast. Everything else is refused by default: private (RFC 1918,
 * fc00::/7), loopback, link-local (169.254/16 with the cloud metadata address, fe80::/10), CGNAT (100.64/10),
 * multicast, broadcast, unspecified, reserved and documentation ranges, site-local, Teredo.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const a = ipaddr.parse(ip);
  const inner = a.kind() === 'ipv6' ? embeddedV4(a as ipaddr.IPv6) : undefined;
  return (inner ?? a).range() === 'unicast';
}

/** Whether a fetch may connect to `ip`: a public address, or one inside a configured network. */
export function addressAllowed(ip: string, networks: readonly Network[]): boolean {
  if (isPublicAddress(ip)) return true;
  if (!ipaddr.isValid(ip)) return false;
  const a = ipaddr.parse(ip);
  const forms: Address[] = [a];
  const inner = a.kind() === 'ipv6' ? embeddedV4(a as ipaddr.IPv6) : undefined;
  if (inner) forms.push(inner);
  return networks.some(([net, bits]) => forms.some((f) => f.kind() === net.kind() && f.match(net, bits)));
}

const refused = (host: string, ips: string[]) =>
  new BlockedAddressError(
    `${host === ips[0] ? host : `${host} (${ips.join(', ')})`} is a private, loopback, link-local or otherwise non-public address: ` +
      'WebFetch refuses it unless [services.pymodel_fetch] allowed_private_networks lists it',
  );

/** Refuses a URL host that is an IP literal (`[::1]` included): sockets connect to those without a lookup. */
export function checkLiteralHost(hostname: string, networks: readonly Network[]): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !addressAllowed(host, networks)) throw refused(host, [host]);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The `lookup` of every socket a fetch opens: the name is resolved, and only allowed addresses are handed to the
 * connection. Checked where the connection is made, so a name that resolved to a public address for a first
 * check and to 127.0.0.1 for the connection (DNS rebinding) cannot slip through. With `all` (Happy Eyeballs)
 * the allowed addresses are returned; without, the first of them.
 */
export function guardedLookup(networks: readonly Network[]) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const ok = addresses.filter((x) => addressAllowed(x.address, networks));
      if (!ok.length) return callback(refused(hostname, addresses.map((x) => x.address)), []);
      if (options.all) return callback(null, ok);
      callback(null, ok[0]!.address, ok[0]!.family);
    });
  };
}
