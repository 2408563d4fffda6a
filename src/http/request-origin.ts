// The address a request came to, as the client wrote it: scheme, host and port. Koa runs with
// proxy: false, so its own ctx.host never believes X-Forwarded-Host; here a load balancer named in
// TRUSTED_PROXIES is believed (X-Forwarded-Host, X-Forwarded-Proto), as it is about the client's
// address, and anyone else's forwarded headers are ignored. Used where the gateway must tell a
// client how to reach it again (a pairing URL) and no configured address says so.
import type { TLSSocket } from 'node:tls';
import type { Context } from 'koa';
import type { TrustedProxies } from '../common/client-address.ts';

export interface RequestOrigin {
  /** http://host[:port] or https://host[:port], as URL.origin writes it. */
  origin: string;
  /** The host alone, an IPv6 address without its brackets. */
  hostname: string;
}

/** Letters, digits and the punctuation of names, IPv4 and bracketed IPv6 with a port: nothing that could add a user or a path. */
const HOST_HEADER = /^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The request's origin; undefined when the host it names is missing or no valid host. */
export function requestOrigin(ctx: Context, proxies: TrustedProxies): RequestOrigin | undefined {
  const fromProxy = proxies.trusts(ctx.request.socket.remoteAddress);
  const forwardedHost = fromProxy ? asClientSent(ctx.get('x-forwarded-host')) : '';
  const forwardedProto = fromProxy ? asClientSent(ctx.get('x-forwarded-proto')).toLowerCase() : '';
  const encrypted = Boolean((ctx.req.socket as TLSSocket).encrypted);
  const protocol = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : encrypted ? 'https' : 'http';
  const host = forwardedHost || ctx.get('host');
  if (!HOST_HEADER.test(host)) return undefined;
  let url: URL;
  try {
    url = new URL(`${protocol}://${host}`);
  } catch {
    return undefined;
  }
  return { origin: url.origin, hostname: url.hostname.replace(/^\[(.*)\]$/, '$1') };
}

/** Each proxy in a chain appends its value: the first is what the client itself sent to the first proxy. */
function asClientSent(value: string): string {
  return value.split(',')[0]!.trim();
}
