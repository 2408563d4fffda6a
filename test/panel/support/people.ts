// The people who log in to the panel in these tests: users of the test's tenant, made through
// the gateway's own service as `users create` does, with a known password or a one-time one.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { Gateway } from '../../../src/gateway.ts';
import type { Role } from '../../../src/modules/users/repository.ts';
import { SessionClient, USER_PASSWORD } from '../../support/session-client.ts';
import { ApiClient } from '../../support/tenant.ts';

export interface PanelUser {
  id: string;
  email: string;
  password: string;
}

export function panelEmail(role: string): string {
  return `${role}-${randomBytes(4).toString('hex')}@example.com`;
}

/** A user of the account who logs in with USER_PASSWORD (no forced change). */
export async function panelUser(gateway: Gateway, accountId: string, role: Role, options: { isAdmin?: boolean } = {}): Promise<PanelUser> {
  const email = panelEmail(role);
  const { user } = await gateway.services.users.create({ accountId, email, role, password: USER_PASSWORD, isAdmin: options.isAdmin ?? false });
  return { id: user.id, email, password: USER_PASSWORD };
}

/** A user given a one-time password, as `users create` and the first start make them: it must be changed at first login. */
export async function oneTimeUser(gateway: Gateway, accountId: string, role: Role = 'owner'): Promise<PanelUser> {
  const email = panelEmail(role);
  const { user, oneTimePassword } = await gateway.services.users.create({ accountId, email, role });
  return { id: user.id, email, password: oneTimePassword! };
}

/**
 * The browser's own session as an HTTP client: its cookie and the CSRF token the panel holds, so
 * a test can try, outside the panel, a change the panel does not offer.
 */
export async function browserSession(page: Page, baseUrl: string): Promise<SessionClient> {
  const cookies = await page.context().cookies(baseUrl);
  const cookie = cookies.map(({ name, value }) => `${name}=${value}`).join('; ');
  const reply = await new ApiClient(`${baseUrl}/api/ext/v1`, undefined).request('GET', '/session', undefined, { cookie });
  if (reply.status !== 200) throw new Error(`GET /session with the browser's cookie answered ${reply.status}`);
  return new SessionClient(`${baseUrl}/api/ext/v1`, cookie, reply.body.csrf_token, reply.body.user.id);
}
