// SSRF guard: a webhook may not point the gateway at its own network. Every address that is not
// public unicast is refused (address-classification.ts: loopback, private, link-local, site-local,
// multicast, reserved, and IPv6 forms carrying such an IPv4 address), checked for literal IPs
// and after DNS resolution, at creation and again at every send (the send path checks the
// address it actually connects to, so DNS rebinding gains nothing).
// WEBHOOK_ALLOWED_HOSTS opens named destinations: host names, addresses or CIDR ranges.
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { lookup as lookupCallback, type LookupAddress, type LookupOptions } from 'node:dns';
import { ipv4Inside, parseAddress, refusedRange } from './address-classification.ts';

export class DestinationGuard {
  private readonly names = new Set<string>();
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];

  constructor(allowedHosts: string[]) {
    for (const entry of allowedHosts) {
      if (ipaddr.isValidCIDR(entry)) this.ranges.push(ipaddr.parseCIDR(entry));
      else if (isIP(entry)) {
        const address = parseAddress(entry)!;
        this.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else this.names.add(entry.toLowerCase());
    }
  }

  /** Why the URL may not be used, or undefined when it may. Resolves host names. */
  async refusal(rawUrl: string): Promise<string | undefined> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return 'url is not a valid URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be http or https';
    if (url.username || url.password) return 'url must not carry credentials';
    const host = hostOf(url);
    if (this.names.has(host)) return undefined;
    if (isIP(host)) return this.addressAllowed(host) ? undefined : `url points at a ${refusedRange(host)} address, which webhooks may not reach${howToAllow(host)}`;
    let addresses: LookupAddress[];
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      return `url host ${host} does not resolve`;
    }
    const blocked = addresses.find((address) => !this.addressAllowed(address.address));
    return blocked
      ? `url host ${host} resolves to ${refusedRange(blocked.address)} address ${blocked.address}, which webhooks may not reach${howToAllow(host)}`
      : undefined;
  }

  /** Whether the host name is opened by name (then its addresses are not checked). */
  allowsName(host: string): boolean {
    return this.names.has(host.toLowerCase());
  }

  /** Whether a webhook may connect to this literal address. */
  addressAllowed(address: string): boolean {
    const parsed = parseAddress(address);
    if (!parsed) return false;
    if (this.opened(parsed)) return true;
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1, 6to4, ...) is opened by its IPv4 entry.
    const inside = parsed.kind() === 'ipv6' ? ipv4Inside(parsed) : [];
    if (inside.length > 0 && inside.every((ipv4) => this.opened(ipv4))) return true;
    return refusedRange(address) === undefined;
  }

  private opened(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  }

  /**
   * A dns.lookup replacement for the HTTP client: it resolves, then refuses blocked addresses,
   * so the address checked is the address connected to.
   */
  readonly lookup = (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
    lookupCallback(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const usable = this.allowsName(hostname) ? addresses : addresses.filter((address) => this.addressAllowed(address.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`webhook host ${hostname} resolves only to addresses webhooks may not reach`), { code: 'EBLOCKED' });
        return callback(refused, '');
      }
      if (options.all) return callback(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/**
 * A receiver on the gateway's own machine or network is a common first setup, and the refusal
 * alone leaves its operator guessing: say which setting opens it on purpose.
 */
function howToAllow(host: string): string {
  return `; to let webhooks reach a receiver there on purpose (on this machine or your network), add ${host} to the WEBHOOK_ALLOWED_HOSTS setting (host names, addresses or CIDR ranges, comma separated) and restart the gateway`;
}

function hostOf(url: URL): string {
  // URL keeps IPv6 literals in brackets.
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}
