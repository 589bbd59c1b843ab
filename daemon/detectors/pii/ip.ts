// IP addresses, v4 and v6, validated by node:net. Only globally routable addresses are reported by
// default: an address that can name a subscriber is personal data, while private, loopback,
// link-local and CGNAT addresses name a machine inside someone's network (`privateIps: true`
// reports them too). Documentation ranges (RFC 5737, RFC 3849) are the address form of RFC 2606,
// and unspecified, multicast and reserved addresses name nobody: these always pass.
import { isIPv4, isIPv6 } from 'node:net';
import type { Candidate, ScanOptions } from './shared.js';
import { contextScore, isWordChar } from './shared.js';

// Ranges as [first bits, prefix length]: v4 over the 32-bit address, v6 over its first 32 bits
// (every range below is at most /32). node:net's BlockList answers the same question but
// allocates a SocketAddress per check, which showed up in the detector's profile.
type Range = readonly [number, number];
const v4 = (a: string, n: number): Range => [a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0), n];
const v6 = (hex: string, n: number): Range => [parseInt(hex, 16), n];

const NOBODY_V4 = [
  v4('0.0.0.0', 8),
  v4('192.0.0.0', 24),
  v4('192.0.2.0', 24),
  v4('198.18.0.0', 15),
  v4('198.51.100.0', 24),
  v4('203.0.113.0', 24),
  v4('224.0.0.0', 4),
  v4('240.0.0.0', 4),
];
const PRIVATE_V4 = [
  v4('10.0.0.0', 8),
  v4('100.64.0.0', 10),
  v4('127.0.0.0', 8),
  v4('169.254.0.0', 16),
  v4('172.16.0.0', 12),
  v4('192.168.0.0', 16),
];
// v6: documentation 2001:db8::/32 and multicast ff00::/8 name nobody; ULA fc00::/7 and link-local
// fe80::/10 are private. Global unicast 2000::/3 is reported in any form. An address outside it
// (reserved space today, but what generated data sets and logs from odd networks hold) is reported
// when it is written with at least four groups: "a::b" or "dead::beef" in code is not an address
// anyone wrote, and neither ::1 nor :: names anybody. An address with an embedded IPv4 (v4-mapped
// ::ffff:a.b.c.d, v4-compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d) is judged by that IPv4.
// Times (12:30:45) and MAC addresses (00:1a:2b:3c:4d:5e) are not valid IPv6 and never match; a MAC
// names a device's network card, not a person's connection, and is not reported, nor is an EUI-64
// written as eight two-digit groups, which is valid IPv6 syntax.
const NOBODY_V6 = [v6('20010db8', 32), v6('ff000000', 8)];
const PRIVATE_V6 = [v6('fc000000', 7), v6('fe800000', 10)];
const GLOBAL_V6 = v6('20000000', 3);

function inRange(value: number, [first, bits]: Range): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(value / size) === Math.floor(first / size);
}

/** The first 32 bits of a valid IPv6 address. */
function v6Head(address: string): number {
  const [head = ''] = address.split('::');
  const groups = head === '' ? [] : head.split(':');
  const hi = groups[0] !== undefined && !groups[0].includes('.') ? parseInt(groups[0], 16) : 0;
  const lo = groups[1] !== undefined && !groups[1].includes('.') ? parseInt(groups[1], 16) : 0;
  return hi * 65536 + lo;
}

const V4 = /(?<![A-Za-z0-9_.])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\p{L}\p{N}_]|\.\d)/gu;
const V6 = /(?<![A-Za-z0-9_:.])[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:.]{2,41}(?![\p{L}\p{N}_:])/gu;

const POSITIVE = /\b(?:ip|ipv[46]|address|adresse|server|host|client|remote|login|connect|von|from|de\s+l'ip)\b/iu;
// Dotted numbers after these words are versions or section numbers, not addresses.
const VERSION =
  /\b(?:v|ver|version|release|build|rev|revision|firmware|fw|patch|sdk|section|chapter|kapitel|abschnitt|clause|article|oid|versi[oó]n|versione|versie|wersj[ai]|secci[oó]n|sezione|sectie|cap[ií]tulo|capitolo|hoofdstuk|rozdzia[lł]|art[ií]culo|articolo|artikel|artyku[lł])[.:\s]{0,3}$/iu;

export function findIps(text: string, options: ScanOptions): Candidate[] {
  const out: Candidate[] = [];
  V4.lastIndex = 0;
  for (let m = V4.exec(text); m !== null; m = V4.exec(text)) {
    if (isWordChar(text[m.index - 1]) || !isIPv4(m[0]) || !reportable(m[0], 'ipv4', options)) continue;
    const c = scored(text, m.index, m.index + m[0].length, 'ip-v4');
    if (c !== null) out.push(c);
  }
  V6.lastIndex = 0;
  for (let m = V6.exec(text); m !== null; m = V6.exec(text)) {
    if (isWordChar(text[m.index - 1])) continue;
    // A sentence may end right after the address ("... from 2001:db8::1."), so retry without trailing dots.
    const address = isIPv6(m[0]) ? m[0] : m[0].replace(/\.+$/, '');
    if (!isIPv6(address) || !reportable(address, 'ipv6', options)) continue;
    const c = scored(text, m.index, m.index + address.length, 'ip-v6');
    if (c !== null) out.push(c);
  }
  return out;
}

function reportable(address: string, family: 'ipv4' | 'ipv6', options: ScanOptions): boolean {
  if (family === 'ipv4') {
    const value = v4(address, 32)[0];
    if (NOBODY_V4.some((r) => inRange(value, r))) return false;
    return !PRIVATE_V4.some((r) => inRange(value, r)) || options.privateIps;
  }
  const head = v6Head(address);
  if (address.includes('.') && (head === 0 || head === 0xffff || head === 0x64ff9b)) {
    return reportable(address.slice(address.lastIndexOf(':') + 1), 'ipv4', options);
  }
  if (NOBODY_V6.some((r) => inRange(head, r))) return false;
  if (PRIVATE_V6.some((r) => inRange(head, r))) return options.privateIps;
  if (inRange(head, GLOBAL_V6)) return true;
  const groups = address.split(':').filter((g) => g !== '');
  // Eight two-digit groups is an EUI-64 or a MAC written long (00:1a:2b:3c:4d:5e:6f:70), not an address.
  return groups.length >= 4 && !(groups.length === 8 && groups.every((g) => g.length === 2));
}

function scored(text: string, start: number, end: number, rule: string): Candidate | null {
  if (VERSION.test(text.slice(Math.max(0, start - 24), start))) return null;
  const score = contextScore(text, start, end, POSITIVE, { base: 0.9, positive: 1, negative: 0.9 });
  return { entity: 'IP_ADDRESS', start, end, score, rule };
}
