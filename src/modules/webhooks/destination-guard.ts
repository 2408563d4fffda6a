// SSRF guard: a webhook may not point the gateway at its own network. By default every
// loopback, private, link-local, multicast, reserved or documentation address is refused,
// checked for literal IPs and after DNS resolution, at creation and again at every send (the
// send path checks the address it actually connects to, so DNS rebinding gains nothing).
// WEBHOOK_ALLOWED_HOSTS opens named destinations: host names, addresses or CIDR ranges.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { lookup as lookupCallback, type LookupAddress, type LookupOptions } from 'node:dns';

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv6');

export class DestinationGuard {
  private readonly names = new Set<string>();
  private readonly allowed = new BlockList();

  constructor(allowedHosts: string[]) {
    for (const entry of allowedHosts) {
      const [address, prefix] = entry.split('/');
      const family = isIP(address ?? '');
      if (family === 0) this.names.add(entry.toLowerCase());
      else if (prefix === undefined) this.allowed.addAddress(address!, family === 4 ? 'ipv4' : 'ipv6');
      else this.allowed.addSubnet(address!, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
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
    if (isIP(host)) return this.addressAllowed(host) ? undefined : `url points at a ${describe(host)} address, which webhooks may not reach`;
    let addresses: LookupAddress[];
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      return `url host ${host} does not resolve`;
    }
    const blocked = addresses.find((address) => !this.addressAllowed(address.address));
    return blocked ? `url host ${host} resolves to ${describe(blocked.address)} address ${blocked.address}, which webhooks may not reach` : undefined;
  }

  /** Whether the host name is opened by name (then its addresses are not checked). */
  allowsName(host: string): boolean {
    return this.names.has(host.toLowerCase());
  }

  addressAllowed(address: string): boolean {
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (this.allowed.check(address, family)) return true;
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1, ::ffff:7f00:1) is judged as the IPv4 address.
    const mapped = mappedIPv4(address);
    if (mapped) return this.addressAllowed(mapped);
    return !BLOCKED.check(address, family);
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

function hostOf(url: URL): string {
  // URL keeps IPv6 literals in brackets.
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The IPv4 address inside an IPv4-mapped IPv6 address, in either notation; else undefined. */
function mappedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (dotted) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function describe(address: string): string {
  const mapped = mappedIPv4(address);
  if (mapped) return describe(mapped);
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  const lower = address.toLowerCase();
  if (lower === '::1' || lower.startsWith('127.') || lower === '::ffff:127.0.0.1') return 'loopback';
  if (lower.startsWith('169.254.') || lower.startsWith('fe80:')) return 'link-local';
  if (/^(22[4-9]|23\d)\./.test(lower) || lower.startsWith('ff')) return 'multicast';
  return BLOCKED.check(address, family) ? 'private or reserved' : 'public';
}
