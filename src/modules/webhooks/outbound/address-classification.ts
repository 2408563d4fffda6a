// Which IP addresses a webhook may reach, by the ranges of a maintained library (ipaddr.js,
// following the IANA special-purpose registries) rather than a list of our own: only unicast
// addresses on the public internet. IPv6 forms that carry an IPv4 address are judged by that
// IPv4 address, or [::ffff:127.0.0.1], [::127.0.0.1], [2002:7f00:1::] (6to4) and friends would
// reach the gateway's own loopback or network.
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IANA allocates global unicast IPv6 only from 2000::/3; anything else is not a public host. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** How a refused range is named in error messages. */
const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private (unique local)',
  carrierGradeNat: 'private (carrier-grade NAT)',
  linkLocal: 'link-local',
  deprecatedSiteLocal: 'site-local',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved',
};

/** The address parsed, or undefined when it is not a literal IP address (Node's own strict test). */
export function parseAddress(address: string): Address | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) return undefined;
  // ipaddr.js reads any IPv6 written with a dotted IPv4 tail as IPv4-mapped (::127.0.0.1 becomes
  // ::ffff:127.0.0.1): write the tail as two hex words first, so every form keeps its own bits.
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    return ipaddr.parse(`${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
  }
  return ipaddr.parse(bare);
}

/**
 * The IPv4 address an IPv6 address carries, and how: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d),
 * 6to4 (2002:aabb:ccdd::) and Teredo (2001:0::, server and obfuscated client). Undefined for
 * any other IPv6 address.
 */
export function embeddedIPv4(address: ipaddr.IPv6): { form: string; ipv4: ipaddr.IPv4[] } | undefined {
  const p = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  const range = address.range();
  if (range === 'ipv4Mapped') return { form: 'IPv4-mapped', ipv4: [address.toIPv4Address()] };
  if (range === 'rfc6145') return { form: 'IPv4-translated', ipv4: [fromWords(p[6]!, p[7]!)] };
  if (range === 'rfc6052' && p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0) return { form: 'NAT64', ipv4: [fromWords(p[6]!, p[7]!)] };
  if (range === '6to4') return { form: '6to4', ipv4: [fromWords(p[1]!, p[2]!)] };
  if (range === 'teredo') return { form: 'Teredo', ipv4: [fromWords(p[2]!, p[3]!), fromWords(p[6]! ^ 0xffff, p[7]! ^ 0xffff)] };
  // IPv4-compatible (deprecated): the first 96 bits zero; :: and ::1 are judged as themselves.
  if (p.slice(0, 6).every((part) => part === 0) && (p[6] !== 0 || p[7]! > 1)) return { form: 'IPv4-compatible', ipv4: [fromWords(p[6]!, p[7]!)] };
  return undefined;
}

/** The IPv4 address an address stands for (itself, or the one its IPv6 form carries). */
export function ipv4Inside(address: Address): ipaddr.IPv4[] {
  if (address.kind() === 'ipv4') return [address as ipaddr.IPv4];
  return embeddedIPv4(address as ipaddr.IPv6)?.ipv4 ?? [];
}

/**
 * Why a webhook may not reach this address ("loopback", "private", "site-local", ...), or
 * undefined for a public unicast address. Not a literal IP address: "not an IP address".
 */
export function refusedRange(address: string): string | undefined {
  const parsed = parseAddress(address);
  if (!parsed) return 'not an IP address';
  if (parsed.kind() === 'ipv4') return ipv4Refusal(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    for (const ipv4 of embedded.ipv4) {
      const refusal = ipv4Refusal(ipv4);
      if (refusal) return `${refusal} (${ipv4.toString()} inside ${embedded.form})`;
    }
    return undefined;
  }
  // Not unicast by ipaddr.js, and so refused, among others: the local-use NAT64 prefix
  // 64:ff9b:1::/48 (it embeds IPv4 at a prefix length we cannot know) and site-local fec0::/10.
  const range = v6.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `reserved (${range})`;
  if (!v6.match(GLOBAL_UNICAST_V6)) return 'reserved (outside global unicast 2000::/3)';
  return undefined;
}

function ipv4Refusal(address: ipaddr.IPv4): string | undefined {
  const range = address.range();
  return range === 'unicast' ? undefined : (RANGE_NAMES[range] ?? `reserved (${range})`);
}
