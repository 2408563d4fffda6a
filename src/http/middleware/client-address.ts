// Which client a request comes from, for the limits counted per client address: the socket's
// peer, or, behind a trusted load balancer (TRUSTED_PROXIES), the address it forwards. Worked
// out when something asks (the auth throttle once a client has failed, a login, a phone's
// upload), not for every request: most never need it.
import type Koa from 'koa';
import type { Context } from 'koa';
import type { TrustedProxies } from '../../common/client-address.ts';

/** Has the app's requests take their client address from what `proxies` forward. */
export function trustClientAddresses(app: Koa, proxies: TrustedProxies): void {
  (app.context as { trustedProxies?: TrustedProxies }).trustedProxies = proxies;
}

/** The request's client address, as the app's trusted proxies say; the socket's peer in an app that names none. */
export function addressOf(ctx: Context): string | undefined {
  const peer = ctx.request.socket.remoteAddress;
  const proxies = (ctx as { trustedProxies?: TrustedProxies }).trustedProxies;
  if (!proxies) return peer;
  return (ctx.state.clientAddress ??= proxies.clientOf(peer, ctx.req.headers['x-forwarded-for'])) as string | undefined;
}
