// Extended API v1: the logged-in user's session (the control panel logs in with these). Login is
// the one public route; the others take the session cookie, not an API key.
import { AppError } from '../../../common/errors.ts';
import { groupRoutes } from '../../../http/resource-routes.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie, type CookieOptions } from '../../../http/session-cookie.ts';
import type { LoginThrottle } from '../../../modules/sessions/login-throttle.ts';
import { presentSession } from '../../../modules/sessions/presenter.ts';
import { ChangePasswordBody, LoginBody, SessionStatus, SessionView } from '../../../modules/sessions/schema.ts';
import type { SessionService } from '../../../modules/sessions/service.ts';
import { addressOf } from '../../../http/middleware/client-address.ts';
import { refuseIfThrottled } from '../../../http/middleware/authenticate.ts';

export interface SessionRouteOptions extends CookieOptions {
  /** The cookie lives as long as the session can (its absolute end). */
  maxAgeSeconds: number;
}

export function sessionRoutes(sessions: SessionService, throttle: LoginThrottle, cookie: SessionRouteOptions) {
  const session = groupRoutes({ tag: 'Session', read: 'session', write: 'session' });
  return [
    session.route({
      method: 'post',
      path: '/session',
      operationId: 'login',
      summary: 'Log in with email and password; sets the session cookie',
      permission: 'public',
      body: LoginBody,
      responses: { 200: { description: 'the user and the CSRF token of the new session', schema: SessionView } },
      errors: ['unauthorized', 'too_many_auth_failures'],
      async handle({ body, ctx }) {
        const address = addressOf(ctx);
        const email = body.email.trim().toLowerCase();
        // A blocked address or a locked login: refused before the password is hashed.
        refuseIfThrottled(ctx, throttle.refusedFor(address, email));
        const login = await sessions.login(email, body.password, address);
        if (!login) {
          refuseIfThrottled(ctx, throttle.failed(address, email));
          throw new AppError('unauthorized', 'email or password is wrong');
        }
        setSessionCookie(ctx, login.token, cookie.maxAgeSeconds, cookie);
        return { status: 200, body: presentSession(login) };
      },
    }),
    session.route({
      method: 'get',
      path: '/session',
      operationId: 'getSession',
      summary: 'The logged-in user and the session\'s CSRF token',
      responses: { 200: { description: 'the session', schema: SessionView } },
      async handle({ auth }) {
        return { status: 200, body: presentSession(auth.session!) };
      },
    }),
    session.route({
      method: 'get',
      path: '/session/status',
      operationId: 'getSessionStatus',
      summary: 'Whether the request\'s session cookie belongs to a live session; 200 either way',
      description:
        'What the control panel asks first: a browser logs every 401 in its console, and someone not logged in yet is no error. ' +
        'When signed_in is true, GET /session gives the user and the CSRF token.',
      permission: 'public',
      responses: { 200: { description: 'whether a session is live', schema: SessionStatus } },
      async handle({ ctx }) {
        const token = ctx.cookies.get(SESSION_COOKIE);
        const live = token ? await sessions.authenticate(token) : undefined;
        return { status: 200, body: { signed_in: live !== undefined } };
      },
    }),
    session.route({
      method: 'delete',
      path: '/session',
      operationId: 'logout',
      summary: 'Log out: ends the session and clears its cookie',
      responses: { 204: { description: 'logged out' } },
      async handle({ auth, ctx }) {
        await sessions.logout(auth.session!.session.id);
        clearSessionCookie(ctx, cookie);
        return { status: 204 };
      },
    }),
    session.route({
      method: 'post',
      path: '/session/password',
      operationId: 'changePassword',
      summary: 'Change the logged-in user\'s password (ends their other sessions)',
      body: ChangePasswordBody,
      responses: { 204: { description: 'changed' } },
      async handle({ auth, body }) {
        await sessions.changePassword(auth.session!, body.current_password, body.new_password);
        return { status: 204 };
      },
    }),
  ];
}
