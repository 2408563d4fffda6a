// The identity the gateway counts a client by, for limits that apply per client address (failed
// authentications, MQTT connections): the peer address of the socket, or, for a connection from a
// trusted load balancer (TRUSTED_PROXIES), the address it forwards.
//
// An IPv6 client is counted by its /64 network: one subscriber is routinely given a whole /64,
// so counting single IPv6 addresses would let one client spread over 2^64 of them. An IPv4
// address written as IPv4-mapped IPv6 (::ffff:192.0.2.1, as a dual-stack listener reports it)
// is the IPv4 address.
import ipaddr from 'ipaddr.js';

/** A socket whose peer went away before it was read has no address: they all count as one. */
const UNKNOWN = 'unknown';

/** The key of an address; a key given again is returned as it is (callers may pass either). */
export function clientAddressKey(address: string | undefined): string {
  if (!address) return UNKNOWN;
  if (address.endsWith('::/64') && ipaddr.isValidCIDR(address)) return address;
  if (!ipaddr.isValid(address)) return UNKNOWN;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}

/**
 * The load balancers (TRUSTED_PROXIES) whose word on the client's address is taken: behind one,
 * every connection comes from the balancer, and limits per client address would count all
 * clients as one. A request from a trusted proxy is counted by the address it forwards
 * (X-Forwarded-For over HTTP and WebSocket, the PROXY protocol over MQTT/TCP); from anyone else,
 * by its own peer address, whatever headers it sends.
 */
export class TrustedProxies {
  private constructor(private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][]) {}

  static none(): TrustedProxies {
    return new TrustedProxies([]);
  }

  /** Addresses and CIDR ranges; throws on one that is neither. */
  static parse(list: readonly string[]): TrustedProxies {
    return new TrustedProxies(
      list.map((entry) => {
        if (ipaddr.isValidCIDR(entry)) {
          const [range, bits] = ipaddr.parseCIDR(entry);
          return [normal(range), range.kind() === 'ipv6' && normal(range).kind() === 'ipv4' ? bits - 96 : bits];
        }
        if (ipaddr.isValid(entry)) {
          const address = normal(ipaddr.parse(entry));
          return [address, address.kind() === 'ipv4' ? 32 : 128];
        }
        throw new Error(`"${entry}" is neither an address nor a CIDR range`);
      }),
    );
  }

  get any(): boolean {
    return this.ranges.length > 0;
  }

  trusts(address: string | undefined): boolean {
    if (!address || this.ranges.length === 0 || !ipaddr.isValid(address)) return false;
    const parsed = normal(ipaddr.parse(address));
    return this.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range as never, bits));
  }

  /**
   * The client's address for a connection from `peer` carrying `X-Forwarded-For`: the nearest
   * forwarded address that is not itself a trusted proxy. A malformed header from a trusted
   * proxy counts the proxy, never a guess.
   */
  clientOf(peer: string | undefined, forwardedFor: string | string[] | undefined): string | undefined {
    if (!forwardedFor || !this.trusts(peer)) return peer;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((hop) => hop.trim());
    if (hops.length > 32 || hops.some((hop) => !ipaddr.isValid(hop))) return peer;
    for (let i = hops.length - 1; i >= 0; i--) if (!this.trusts(hops[i])) return hops[i];
    return hops[0];
  }
}

/** IPv4-mapped IPv6 as IPv4, so that 10.0.0.0/8 matches ::ffff:10.1.2.3. */
function normal(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}
