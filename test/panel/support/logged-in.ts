// One user per test file, logged in once: each test starts in a fresh browser context holding
// that session's cookie. A login costs a deliberately slow password hash (about a second on a
// small machine), so paying it per test would make the suite crawl; the files that test logging
// in itself do it per test.
import type { Cookie, Page } from 'playwright-core';
import type { Role } from '../../../src/modules/users/repository.ts';
import type { GatewayFixture } from '../../support/use-gateway.ts';
import type { BrowserFixture } from './browser.ts';
import { panelUser, type PanelUser } from './people.ts';

export interface LoggedIn {
  readonly user: PanelUser;
  /** Puts the session's cookie in the page's context; the next page.goto opens the panel logged in. */
  enter(page: Page): Promise<void>;
}

/** Needs useGateway({ tenant: 'once' }): the user belongs to the describe's tenant. */
export function useLoggedIn(gw: GatewayFixture, browser: BrowserFixture, role: Role, options: { isAdmin?: boolean } = {}): LoggedIn {
  let user: PanelUser | undefined;
  let cookies: Cookie[] = [];
  before(async function () {
    this.timeout(Math.max(this.timeout(), 20_000));
    user = await panelUser(gw.gateway, gw.tenant.accountId, role, options);
    cookies = await browser.sessionCookies(user.email, user.password);
  });
  return {
    get user() {
      if (!user) throw new Error('useLoggedIn: read the user inside a test');
      return user;
    },
    enter: (page) => page.context().addCookies(cookies),
  };
}
