// The identity the gateway counts a client by, for limits that apply per client address (failed
// authentications, MQTT connections). The HTTP server does not trust proxy headers, so this is
// the peer address of the socket.
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
