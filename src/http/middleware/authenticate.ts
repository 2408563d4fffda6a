// Bearer-key authentication (spec 5.1). A missing or unknown key is a 401 that tells the
// client how to authenticate (RFC 6750 WWW-Authenticate); permission checks come after.
import type { Context } from 'koa';
import { AppError } from '../../common/errors.ts';
import type { AuthContext } from '../../modules/api-keys/service.ts';

export interface Authenticator {
  authenticate(presentedKey: string): Promise<AuthContext | undefined>;
}

const REALM = 'Bearer realm="sms-gateway"';

export async function authenticateRequest(ctx: Context, authenticator: Authenticator): Promise<AuthContext> {
  const header = ctx.get('authorization');
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) {
    ctx.set('WWW-Authenticate', REALM);
    throw new AppError('unauthorized', header ? 'Authorization header must be "Bearer <API key>"' : undefined);
  }
  const auth = await authenticator.authenticate(match[1]!);
  if (!auth) {
    ctx.set('WWW-Authenticate', `${REALM}, error="invalid_token"`);
    throw new AppError('unauthorized', 'the API key is unknown or revoked');
  }
  ctx.state.accountId = auth.accountId;
  return auth;
}
