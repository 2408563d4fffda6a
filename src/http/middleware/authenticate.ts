// Authentication of API requests: a bearer key, or (for the control panel) a session
// cookie. A request with an Authorization header is judged by its key alone, exactly as before
// sessions existed. Without one, a valid session cookie authenticates as the user's account,
// with the permissions of the user's role. A missing or unknown key is a 401 that tells the
// client how to authenticate (RFC 6750 WWW-Authenticate); permission checks come after.
// Unknown keys are counted per client address and per key prefix (src/common/auth-throttle.ts):
// past the limit a wrong key is answered 429 instead of 401 while a valid one is still served;
// an address far past it is refused 429 before its key is even read, so guessing costs nothing.
import type { Context } from 'koa';
import { AppError } from '../../common/errors.ts';
import { hashSecret, secretMatches } from '../../common/secrets.ts';
import type { AuthAttempt, AuthThrottle } from '../../common/auth-throttle.ts';
import { keyPrefix } from '../../modules/api-keys/key-format.ts';
import { ROLE_PERMISSIONS } from '../../modules/api-keys/permissions.ts';
import type { AuthContext } from '../../modules/api-keys/service.ts';
import type { ActiveSession } from '../../modules/sessions/service.ts';
import { clearSessionCookie, SESSION_COOKIE, type CookieOptions } from '../session-cookie.ts';
import { addressOf } from './client-address.ts';

export interface Authenticator {
  authenticate(presentedKey: string): Promise<AuthContext | undefined>;
  /** The live session of a cookie token; none: cookies are not looked at. */
  authenticateSession?(token: string): Promise<ActiveSession | undefined>;
  /** How the session cookie is written, to clear one whose session has ended. */
  readonly sessionCookie?: CookieOptions;
  /** Whether the account was disabled by the instance administrator; none: accounts are never disabled. */
  accountDisabled?(accountId: string): Promise<boolean>;
  /** Counts unknown keys per client address and key prefix, and refuses a blocked address; none: no throttling. */
  readonly throttle?: AuthThrottle;
}

/** Who is calling: a key's account and permissions, and the logged-in user when it is a session. */
export interface RequestAuth extends AuthContext {
  session?: ActiveSession;
}

const REALM = 'Bearer realm="sms-gateway"';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export async function authenticateRequest(ctx: Context, authenticator: Authenticator): Promise<RequestAuth> {
  const header = ctx.get('authorization');
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  const attempt: AuthAttempt = {
    channel: 'api_key',
    // The socket's peer, or the client a trusted load balancer names (never Koa's app.proxy, which
    // trusts anyone); read by the throttle only once a client has failed.
    get address() {
      return addressOf(ctx);
    },
    credential: match ? keyPrefix(match[1]!) : undefined,
  };
  // A blocked address is refused before anything else, its session cookie included.
  refuseIfThrottled(ctx, authenticator.throttle?.refusedFor(attempt) ?? 0);
  const cookie = header ? undefined : ctx.cookies.get(SESSION_COOKIE);
  if (cookie !== undefined && authenticator.authenticateSession) return authenticateSession(ctx, authenticator, cookie);
  if (!match) {
    // Not counted: no key was presented, so nothing was guessed.
    ctx.set('WWW-Authenticate', REALM);
    throw new AppError('unauthorized', header ? 'Authorization header must be "Bearer <API key>"' : undefined);
  }
  const auth = await authenticator.authenticate(match[1]!);
  if (!auth) {
    refuseIfThrottled(ctx, authenticator.throttle?.failed(attempt) ?? 0);
    ctx.set('WWW-Authenticate', `${REALM}, error="invalid_token"`);
    throw new AppError('unauthorized', 'the API key is unknown or revoked');
  }
  await refuseDisabledAccount(authenticator, auth.accountId);
  ctx.state.accountId = auth.accountId;
  return auth;
}

/**
 * A disabled account's keys and sessions are still real credentials, so the answer is 403
 * account_disabled rather than 401: a client learns why instead of retrying other keys.
 */
async function refuseDisabledAccount(authenticator: Authenticator, accountId: string): Promise<void> {
  if (await authenticator.accountDisabled?.(accountId)) throw new AppError('account_disabled');
}

/** 429 with Retry-After when the throttle says to wait; nothing otherwise. */
export function refuseIfThrottled(ctx: Context, waitMs: number): void {
  if (waitMs <= 0) return;
  ctx.set('Retry-After', String(Math.ceil(waitMs / 1000)));
  throw new AppError('too_many_auth_failures');
}

async function authenticateSession(ctx: Context, authenticator: Authenticator, token: string): Promise<RequestAuth> {
  // Not counted as a failure: a 32-byte token cannot be guessed, and a browser keeps sending
  // the cookie of a session that merely expired.
  const active = await authenticator.authenticateSession!(token);
  if (!active) {
    ctx.set('WWW-Authenticate', REALM);
    // The browser would otherwise send the dead cookie with every request until it expires.
    clearSessionCookie(ctx, authenticator.sessionCookie ?? { secure: false });
    throw new AppError('unauthorized', 'the session has ended; log in again (or use an API key)');
  }
  // A browser sends the cookie with a request another site makes it send; such a site cannot
  // read the CSRF token, which only the session's own answers carry.
  if (!SAFE_METHODS.has(ctx.method) && !secretMatches(ctx.get('x-csrf-token'), hashSecret(active.session.csrf_token))) {
    throw new AppError('csrf_failed');
  }
  await refuseDisabledAccount(authenticator, active.user.account_id);
  ctx.state.accountId = active.user.account_id;
  return {
    accountId: active.user.account_id,
    keyId: '',
    permissions: ROLE_PERMISSIONS[active.user.role],
    session: active,
  };
}
