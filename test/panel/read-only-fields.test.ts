// What a viewer may not change looks so: the opt-out settings are shown to a viewer in a disabled
// fieldset, and their text fields are greyed rather than white like a field one can type in.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: fields a viewer cannot change', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');
  const viewer = useLoggedIn(gw, browser, 'viewer');

  async function helpFieldBackground(page: import('playwright-core').Page): Promise<{ disabled: boolean; background: string }> {
    await openPanel(page, '/opt-out', 'Opt-out');
    const field = page.getByLabel('Answer to HELP');
    return field.evaluate((element) => ({
      disabled: element.matches(':disabled'),
      background: (globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor,
    }));
  }

  browser.scenario("a viewer's opt-out settings are greyed, an owner's are white", async (page) => {
    await owner.enter(page);
    const editable = await helpFieldBackground(page);
    expect(editable).to.deep.equal({ disabled: false, background: 'rgb(255, 255, 255)' });

    await page.context().clearCookies();
    await viewer.enter(page);
    // The panel reads who is logged in when it loads.
    await page.reload();
    const locked = await helpFieldBackground(page);
    expect(locked.disabled).to.equal(true);
    expect(locked.background).to.not.equal(editable.background);
  });
});
