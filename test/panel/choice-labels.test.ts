// A permission's checkbox and its name stay on one line in the new key form, the longest name
// (sms:send_transactional) too: a name pushed under its box reads as belonging to the next one.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: checkbox grids', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('every permission name starts beside its box, on its line', async (page) => {
    await owner.enter(page);
    await openPanel(page, '/keys', 'API keys');
    const boxes = page.locator('.choice-grid .field-checkbox');
    expect(await boxes.count()).to.be.above(10);
    const misplaced = await boxes.evaluateAll((fields) =>
      fields
        .map((field) => {
          const box = field.querySelector('input')!.getBoundingClientRect();
          const label = field.querySelector('label')!.getBoundingClientRect();
          return { name: field.querySelector('label')!.textContent, beside: label.left > box.right && label.top < box.bottom };
        })
        .filter((field) => !field.beside)
        .map((field) => field.name),
    );
    expect(misplaced).to.deep.equal([]);
  });
});
