// The upstream address guard: an MCP server may only be reached on a public unicast address, or on
// one inside GATEWAY_UPSTREAM_ALLOW. The check runs inside the connector of the undici dispatcher
// that every outbound MCP call uses, on the very addresses the socket then connects to.
//
// Why rebinding cannot slip through: the connector resolves the host once (its `lookup` is the one
// net.connect calls), refuses the connection if ANY resolved address is forbidden, and hands the
// checked list itself to the socket. No second resolution happens between check and connect, and
// IP literals (which net.connect never resolves) are checked before the socket is created.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, type Dispatcher } from 'undici';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

export type ForbiddenReason = 'invalid_url' | 'scheme' | 'credentials' | 'address';

/** The one refusal of this module; `code` is the spec's `upstream_url_forbidden`. */
export class UpstreamForbiddenError extends Error {
  readonly code = 'upstream_url_forbidden' as const;
  readonly reason: ForbiddenReason;
  /** The refused address and the name of the range it fell in (reason `address` only). */
  readonly address: string | undefined;
  readonly range: string | undefined;

  constructor(reason: ForbiddenReason, message: string, address?: string, range?: string) {
    super(message);
    this.name = 'UpstreamForbiddenError';
    this.reason = reason;
    this.address = address;
    this.range = range;
  }
}

interface Block {
  readonly cidr: Cidr;
  readonly name: string;
}
const block = (cidr: string, name: string): Block => ({ cidr: ipaddr.parseCIDR(cidr) as Cidr, name });

// IANA special-purpose blocks (RFC 6890 and successors). The first match names the range.
const V4_FORBIDDEN: readonly Block[] = [
  block('0.0.0.0/8', 'unspecified'),
  block('10.0.0.0/8', 'private'),
  block('100.64.0.0/10', 'cgnat'),
  block('127.0.0.0/8', 'loopback'),
  block('169.254.0.0/16', 'link-local'),
  block('172.16.0.0/12', 'private'),
  block('192.0.0.0/24', 'ietf-protocol'),
  block('192.0.2.0/24', 'documentation'),
  block('192.31.196.0/24', 'as112'),
  block('192.52.193.0/24', 'amt'),
  block('192.88.99.0/24', '6to4-relay'),
  block('192.168.0.0/16', 'private'),
  block('198.18.0.0/15', 'benchmarking'),
  block('198.51.100.0/24', 'documentation'),
  block('203.0.113.0/24', 'documentation'),
  block('224.0.0.0/4', 'multicast'),
  block('255.255.255.255/32', 'broadcast'),
  block('240.0.0.0/4', 'reserved'),
];

// Teredo and 6to4 tunnel to IPv4 hosts the guard cannot see (Teredo even obfuscates them); both
// are deprecated, so they are refused outright rather than decoded.
const V6_FORBIDDEN: readonly Block[] = [
  block('::/128', 'unspecified'),
  block('::1/128', 'loopback'),
  block('64:ff9b:1::/48', 'nat64-local'),
  block('100::/64', 'discard'),
  block('2001::/32', 'teredo'),
  block('2001:db8::/32', 'documentation'),
  block('2001::/23', 'ietf-protocol'),
  block('2002::/16', '6to4'),
  block('3fff::/20', 'documentation'),
  block('5f00::/16', 'srv6'),
  block('fc00::/7', 'unique-local'),
  block('fe80::/10', 'link-local'),
  block('fec0::/10', 'site-local'),
  block('ff00::/8', 'multicast'),
];

// IPv6 forms that carry an IPv4 address in their last 32 bits are judged by that address. The
// deprecated IPv4-compatible form has no legitimate use and is refused whatever it carries.
const V6_EMBEDDING: ReadonlyArray<Block & { readonly refuseAll: boolean }> = [
  { ...block('::ffff:0:0/96', 'ipv4-mapped'), refuseAll: false },
  { ...block('::ffff:0:0:0/96', 'ipv4-translated'), refuseAll: false },
  { ...block('64:ff9b::/96', 'nat64'), refuseAll: false },
  { ...block('::/96', 'ipv4-compatible'), refuseAll: true },
];

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as Cidr;

function within(addr: Address, [network, bits]: Cidr): boolean {
  if (addr.kind() !== network.kind()) return false;
  return addr.kind() === 'ipv4'
    ? (addr as ipaddr.IPv4).match(network as ipaddr.IPv4, bits)
    : (addr as ipaddr.IPv6).match(network as ipaddr.IPv6, bits);
}

function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4 {
  const p = addr.parts;
  return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
}

/** The name of the forbidden range `addr` falls in, or null for a public unicast address. */
function forbiddenRange(addr: Address): string | null {
  if (addr.kind() === 'ipv4') {
    const hit = V4_FORBIDDEN.find((b) => within(addr, b.cidr));
    if (hit) return hit.name;
  } else {
    const v6 = addr as ipaddr.IPv6;
    const hit = V6_FORBIDDEN.find((b) => within(v6, b.cidr));
    if (hit) return hit.name;
    const embed = V6_EMBEDDING.find((b) => within(v6, b.cidr));
    if (embed) {
      if (embed.refuseAll) return embed.name;
      const inner = forbiddenRange(embeddedV4(v6));
      return inner === null ? null : `${embed.name}:${inner}`;
    }
    if (!within(v6, GLOBAL_UNICAST_V6)) return 'reserved';
  }
  // Second belt: whatever the IP library itself knows to be special is refused too.
  const range = addr.range();
  return range === 'unicast' ? null : range;
}

/** A parsed GATEWAY_UPSTREAM_ALLOW: the ranges let through although they are internal. */
export interface AllowList {
  readonly cidrs: readonly Cidr[];
}

/** Parses CIDRs (a bare address is a single host); throws naming the first invalid entry. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const cidrs = entries.map((raw) => {
    const entry = raw.trim();
    const host = entry.split('/')[0];
    let cidr: Cidr;
    try {
      // net.isIP first: the IP library would also take inet_aton spellings such as 10.1 or 0x0a.0.0.1.
      if (net.isIP(host) === 0) throw new Error('not an address');
      cidr = (entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), net.isIP(host) === 6 ? 128 : 32]) as Cidr;
    } catch {
      throw new RangeError(`GATEWAY_UPSTREAM_ALLOW: "${entry}" is not a CIDR`);
    }
    const [addr, bits] = cidr;
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96] as Cidr;
    }
    return cidr;
  });
  return Object.freeze({ cidrs: Object.freeze(cidrs) });
}

export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

/** Parses an address; null when it is none. Exotic IPv6 spellings go through the URL parser first. */
function parseAddress(address: string): Address | null {
  if (net.isIP(address) === 0) return null;
  try {
    return ipaddr.parse(address);
  } catch {
    if (net.isIP(address) !== 6) return null;
  }
  try {
    const host = new URL(`http://[${address.split('%')[0]}]/`).hostname;
    return ipaddr.parse(host.slice(1, -1));
  } catch {
    return null;
  }
}

/** Judges one resolved address. Anything it cannot read is refused. */
export function checkAddress(address: string, allow: AllowList): AddressVerdict {
  let addr = parseAddress(address);
  if (addr === null) return { allowed: false, range: 'not-an-address' };
  // The same socket as the IPv4 address: judged and allowed as that address.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (allow.cidrs.some((cidr) => within(addr, cidr))) return { allowed: true };
  const range = forbiddenRange(addr);
  return range === null ? { allowed: true } : { allowed: false, range };
}

function refuseAddress(host: string, address: string, range: string): UpstreamForbiddenError {
  const shown = host === address ? address : `${host} (${address})`;
  return new UpstreamForbiddenError('address', `upstream address ${shown} is ${range}; not in GATEWAY_UPSTREAM_ALLOW`, address, range);
}

/** Syntax half of the guard: http(s) only, no credentials in the URL. No resolution. */
export function parseUpstreamUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UpstreamForbiddenError('invalid_url', 'the upstream URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UpstreamForbiddenError('scheme', `the upstream URL scheme ${url.protocol} is not http or https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UpstreamForbiddenError('credentials', 'the upstream URL must not carry credentials; use auth_method');
  }
  if (url.hostname === '') throw new UpstreamForbiddenError('invalid_url', 'the upstream URL has no host');
  url.hash = '';
  return url;
}

const bare = (hostname: string) => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

export type Resolve = (hostname: string) => Promise<dns.LookupAddress[]>;

/** All addresses of a host, as the operating system's resolver gives them (node:dns lookup). */
export const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true });

/** Resolves `hostname` and throws unless every address passes; returns the checked list. */
export async function resolveChecked(hostname: string, allow: AllowList, resolve: Resolve = systemResolve): Promise<dns.LookupAddress[]> {
  const host = bare(hostname);
  const addresses = net.isIP(host) !== 0 ? [{ address: host, family: net.isIP(host) }] : await resolve(host);
  if (addresses.length === 0) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) {
    const verdict = checkAddress(address, allow);
    if (!verdict.allowed) throw refuseAddress(host, address, verdict.range);
  }
  return addresses;
}

/**
 * The full guard ahead of time (URL syntax, then resolution), for a refusal before anything is
 * sent, e.g. when a server is registered. The dispatcher repeats the address check on connect.
 */
export async function assertUpstreamAllowed(raw: string, allow: AllowList, resolve: Resolve = systemResolve): Promise<URL> {
  const url = parseUpstreamUrl(raw);
  await resolveChecked(url.hostname, allow, resolve);
  return url;
}

function guardedLookup(allow: AllowList, resolve: Resolve): net.LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, allow, resolve).then(
      (all) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const usable = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        if (usable.length === 0) {
          callback(Object.assign(new Error(`no IPv${String(family)} address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        } else if (options.all === true) {
          callback(null, usable);
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

export interface UpstreamDispatcherOptions {
  /** GATEWAY_UPSTREAM_ALLOW, as parsed or as the raw CIDR strings. */
  allow: AllowList | readonly string[];
  /** Bound on resolving plus connecting (and the TLS handshake), in milliseconds. */
  connectTimeoutMs: number;
  /** The resolver; the system one unless a test stands in for DNS. */
  resolve?: Resolve;
}

const guarded = new WeakSet<Dispatcher>();

/**
 * The dispatcher every outbound MCP call goes through. It follows no redirects (undici only does
 * with a redirect interceptor, which is never composed here) and speaks HTTP/1.1 only.
 */
export function createUpstreamDispatcher(options: UpstreamDispatcherOptions): Dispatcher {
  const allow = 'cidrs' in options.allow ? options.allow : parseAllowList(options.allow);
  const base = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup(allow, options.resolve ?? systemResolve) });
  const connect: buildConnector.connector = (target, callback) => {
    // net.connect never resolves an IP literal, so the lookup above would never see it.
    const host = bare(target.hostname);
    if (net.isIP(host) !== 0) {
      const verdict = checkAddress(host, allow);
      if (!verdict.allowed) {
        callback(refuseAddress(host, host, verdict.range), null);
        return;
      }
    }
    base(target, callback);
  };
  const agent = new Agent({ connect, allowH2: false });
  guarded.add(agent);
  return agent;
}

/** Whether `dispatcher` came from createUpstreamDispatcher (the client refuses any other). */
export function isUpstreamDispatcher(dispatcher: Dispatcher): boolean {
  return guarded.has(dispatcher);
}
