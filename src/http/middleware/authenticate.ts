// Bearer-key authentication (spec 5.1). A missing or unknown key is a 401 that tells the
// client how to authenticate (RFC 6750 WWW-Authenticate); permission checks come after.
// A client address with too many unknown keys lately is refused with 429 before its key is
// even read (src/common/auth-throttle.ts), so guessing keys costs the gateway nothing.
import type { Context } from 'koa';
import { AppError } from '../../common/errors.ts';
import type { AuthThrottle } from '../../common/auth-throttle.ts';
import type { AuthContext } from '../../modules/api-keys/service.ts';

export interface Authenticator {
  authenticate(presentedKey: string): Promise<AuthContext | undefined>;
  /** Counts unknown keys per client address and refuses an address that had too many; none: no throttling. */
  readonly throttle?: AuthThrottle;
}

const REALM = 'Bearer realm="sms-gateway"';

export async function authenticateRequest(ctx: Context, authenticator: Authenticator): Promise<AuthContext> {
  // The socket's peer: the app does not trust proxy headers (app.proxy is false).
  const address = ctx.request.socket.remoteAddress;
  const refusedForMs = authenticator.throttle?.refusedFor(address, 'http') ?? 0;
  if (refusedForMs > 0) {
    ctx.set('Retry-After', String(Math.ceil(refusedForMs / 1000)));
    throw new AppError('too_many_auth_failures');
  }
  const header = ctx.get('authorization');
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) {
    // Not counted: no key was presented, so nothing was guessed.
    ctx.set('WWW-Authenticate', REALM);
    throw new AppError('unauthorized', header ? 'Authorization header must be "Bearer <API key>"' : undefined);
  }
  const auth = await authenticator.authenticate(match[1]!);
  if (!auth) {
    authenticator.throttle?.failed(address, 'http');
    ctx.set('WWW-Authenticate', `${REALM}, error="invalid_token"`);
    throw new AppError('unauthorized', 'the API key is unknown or revoked');
  }
  ctx.state.accountId = auth.accountId;
  return auth;
}
