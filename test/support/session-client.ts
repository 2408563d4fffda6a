// A logged-in user as a test client: logs in over HTTP (POST /session) and sends the session
// cookie, and the CSRF token with every request, the way the control panel does.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Gateway } from '../../src/gateway.ts';
import type { Role } from '../../src/modules/users/repository.ts';
import { ApiClient, type Reply } from './tenant.ts';

export const USER_PASSWORD = 'a long enough password';

export class SessionClient extends ApiClient {
  constructor(
    baseUrl: string,
    readonly cookie: string,
    readonly csrf: string,
    readonly userId: string,
  ) {
    super(baseUrl, undefined);
  }

  override request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    return super.request(method, path, body, { cookie: this.cookie, 'x-csrf-token': this.csrf, ...headers });
  }
}

export function uniqueEmail(): string {
  return `user-${randomBytes(4).toString('hex')}@example.com`;
}

/** POST /session; the reply as it is (for tests of refused logins). */
export function tryLogin(gateway: Gateway, email: string, password: string): Promise<Reply> {
  return new ApiClient(`http://127.0.0.1:${gateway.httpPort}/api/ext/v1`, undefined).post('/session', { email, password });
}

/** Logs in; fails the test unless the login succeeds. */
export async function loginAs(gateway: Gateway, email: string, password: string = USER_PASSWORD): Promise<SessionClient> {
  const reply = await tryLogin(gateway, email, password);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
  const cookie = reply.headers.getSetCookie()[0]!.split(';')[0]!;
  return new SessionClient(`http://127.0.0.1:${gateway.httpPort}/api/ext/v1`, cookie, reply.body.csrf_token, reply.body.user.id);
}

/** A user of the account with a chosen password (no password change needed), logged in. */
export async function userSession(gateway: Gateway, accountId: string, role: Role, options: { isAdmin?: boolean } = {}): Promise<SessionClient & { email: string }> {
  const email = uniqueEmail();
  await gateway.services.users.create({ accountId, email, role, password: USER_PASSWORD, isAdmin: options.isAdmin ?? false });
  return Object.assign(await loginAs(gateway, email), { email });
}
