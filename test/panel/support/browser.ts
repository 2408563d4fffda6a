// The control panel in a real browser: Debian's Chromium driven by playwright-core. One browser
// per test file (started in `before`), a fresh context (cookies, storage) per test, so tests never
// share a session. Every uncaught error in the page fails the test that caused it; console errors
// are kept and printed with any failure, since a failed request (a 401 the login form expects)
// also shows up there and is not a fault by itself.
//
//   describe('panel: something', () => {
//     const gw = useGateway();
//     const browser = useBrowser(() => gw.baseUrl);
//     browser.scenario('does the thing', async (page) => {
//       await loginAs(page, ...);
//     });
//   });
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Cookie, type Page } from 'playwright-core';

/** Where screenshots go (git-ignored). */
export const SCREENSHOT_DIR = 'test-results/panel';
/** The desktop width every page is checked at; phone-width screenshots pass their own. */
export const DESKTOP = { width: 1280, height: 900 } as const;
export const PHONE = { width: 390, height: 844 } as const;
/**
 * How long a Playwright wait or action may take before it fails naming what it waited for. CI runs
 * both database halves of the suite at once on two cores: an API call behind a click has taken
 * over 8 s there.
 */
export const ACTION_TIMEOUT_MS = 15_000;

export class BrowserFixture {
  constructor(private readonly baseUrl: () => string) {}

  private browser: Browser | undefined;
  private currentContext: BrowserContext | undefined;
  private currentPage: Page | undefined;
  /** Uncaught errors of the running test's pages: each one fails the test. */
  readonly pageErrors: string[] = [];
  /** console.error lines of the running test's pages: shown with a failure, not a failure themselves. */
  readonly consoleErrors: string[] = [];

  /** The running test's page (a fresh context per test). */
  get page(): Page {
    if (!this.currentPage) throw new Error('useBrowser: no page (read it inside a test)');
    return this.currentPage;
  }

  get context(): BrowserContext {
    if (!this.currentContext) throw new Error('useBrowser: no context (read it inside a test)');
    return this.currentContext;
  }

  /** Another page in the running test's context (same cookies). */
  async newPage(): Promise<Page> {
    return this.watch(await this.context.newPage());
  }

  /**
   * A test that fails on any uncaught page error, even one that did not break what it asserts;
   * `body` gets the test's page. Errors in the page are appended to the failure message.
   */
  scenario(title: string, body: (page: Page) => Promise<void>, timeoutMs = 15_000): Mocha.Test {
    const fixture = this;
    return it(title, async function () {
      this.timeout(timeoutMs);
      try {
        await body(fixture.page);
      } catch (error) {
        if (error instanceof Error) error.message += fixture.describeErrors();
        throw error;
      }
      expect(fixture.pageErrors, `uncaught errors in the page${fixture.describeErrors()}`).to.deep.equal([]);
    });
  }

  /**
   * Logs in once in a context of its own and returns its cookies, for a file whose tests all
   * look at pages as the same user: `page.context().addCookies(cookies)` skips the login form
   * (and its deliberately slow password hash) in each test.
   */
  async sessionCookies(email: string, password: string): Promise<Cookie[]> {
    const context = await this.browser!.newContext({ baseURL: this.baseUrl() });
    try {
      await loginAs(await context.newPage(), email, password);
      return await context.cookies();
    } finally {
      await context.close();
    }
  }

  /** @internal */
  async launch(): Promise<void> {
    this.browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      // No sandbox: CI runs as root in a container. The others keep Chromium from phoning home
      // or updating itself mid-run; /dev/shm is small in containers.
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
  }

  /** @internal */
  async open(): Promise<void> {
    this.pageErrors.length = 0;
    this.consoleErrors.length = 0;
    this.currentContext = await this.browser!.newContext({ baseURL: this.baseUrl(), viewport: { ...DESKTOP } });
    // Below the test's own timeout, so a wait that never ends fails with what it waited for.
    this.currentContext.setDefaultTimeout(ACTION_TIMEOUT_MS);
    this.currentPage = this.watch(await this.currentContext.newPage());
  }

  /** @internal */
  async closeContext(): Promise<void> {
    await this.currentContext?.close();
    this.currentContext = undefined;
    this.currentPage = undefined;
  }

  /** @internal */
  async close(): Promise<void> {
    await this.browser?.close();
    this.browser = undefined;
  }

  private watch(page: Page): Page {
    page.on('pageerror', (error) => this.pageErrors.push(`${error.name}: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') this.consoleErrors.push(message.text());
    });
    return page;
  }

  private describeErrors(): string {
    const lines = [...this.pageErrors.map((line) => `page error: ${line}`), ...this.consoleErrors.map((line) => `console error: ${line}`)];
    return lines.length ? `\n    ${lines.join('\n    ')}` : '';
  }
}

/** Registers the hooks of a browser for the enclosing describe and returns its handle. */
/** `baseUrl` is read before each test: the gateway's address, so `page.goto('/')` opens the panel. */
export function useBrowser(baseUrl: () => string): BrowserFixture {
  const fixture = new BrowserFixture(baseUrl);
  before(async function () {
    this.timeout(Math.max(this.timeout(), 30_000));
    await fixture.launch();
  });
  beforeEach(() => fixture.open());
  afterEach(() => fixture.closeContext());
  after(() => fixture.close());
  return fixture;
}

/**
 * Logs in through the panel's form and waits for the layout (its "Log out" button); with 'form',
 * only submits (for a login the test expects to be refused).
 */
export async function loginAs(page: Page, email: string, password: string, waitFor: 'layout' | 'form' = 'layout'): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  if (waitFor === 'layout') await page.getByRole('button', { name: 'Log out' }).waitFor();
}

/**
 * Opens a panel path (`/sms/ID`) in the logged-in page and waits until its h1 (the one saying
 * `heading`, when given) is there and nothing on it is still "Loading…", so what a test checks
 * next is the page with its data.
 */
export async function openPanel(page: Page, path: string, heading?: string | RegExp): Promise<void> {
  await page.goto(`/#${path}`);
  await (heading ? page.getByRole('heading', { level: 1, name: heading }) : page.locator('main h1')).waitFor();
  await settled(page);
}

/** Waits until no "Loading…" is left on the page (every list and detail has its data). */
export async function settled(page: Page): Promise<void> {
  // A function, not source text: the page's CSP refuses the eval a text predicate needs. The
  // server's tsconfig has no DOM types, hence globalThis.
  await page.waitForFunction(() => !(globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.includes('Loading…'));
}

// axe-core's bundled source, read once. It is evaluated in the page through the DevTools
// protocol (page.evaluate), which the page's Content-Security-Policy does not govern; a <script>
// tag (page.addScriptTag) would be refused by that policy, and bypassCSP would switch the policy
// off for the whole test, hiding inline styles or scripts a page should not use.
let axeSource: string | undefined;
function axe(): string {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Runs axe-core on the page as it is now and fails listing every serious or critical violation
 * (minor and moderate ones are the page authors' judgement).
 */
export async function checkA11y(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate<boolean>(`'axe' in window`))) await page.evaluate(axe());
  const violations = await page.evaluate<AxeViolation[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target, failureSummary }) => ({ target, failureSummary })) })))
  `);
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  const report = serious
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}\n` +
        violation.nodes.map((node) => `      ${JSON.stringify(node.target)}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`).join('\n'),
    )
    .join('\n    ');
  expect(serious.length, `accessibility of ${name}:\n    ${report}`).to.equal(0);
}

/** Saves a full-page PNG as test-results/panel/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
  return path;
}
