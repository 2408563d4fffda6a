// Which client a request comes from, for the limits counted per client address: the socket's
// peer, or, behind a trusted load balancer (TRUSTED_PROXIES), the address it forwards.
import type { Context, Next } from 'koa';
import type { TrustedProxies } from '../../common/client-address.ts';

export function clientAddress(proxies: TrustedProxies) {
  return function clientAddressMiddleware(ctx: Context, next: Next) {
    ctx.state.clientAddress = proxies.clientOf(ctx.request.socket.remoteAddress, ctx.req.headers['x-forwarded-for']);
    return next();
  };
}

/** The request's client address, as clientAddress() decided it. */
export function addressOf(ctx: Context): string | undefined {
  return (ctx.state.clientAddress as string | undefined) ?? ctx.request.socket.remoteAddress;
}
