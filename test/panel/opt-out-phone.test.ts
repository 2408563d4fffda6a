// The opt-out list on a phone (390 px wide): a suppressed number reads on one line, not a digit a
// line, and its Remove button is on screen.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { openPanel, PHONE, useBrowser } from './support/browser.ts';
import { useLoggedIn } from './support/logged-in.ts';

describe('panel: the opt-out list on a phone', () => {
  const gw = useGateway({ tenant: 'once' });
  const browser = useBrowser(() => gw.baseUrl);
  const owner = useLoggedIn(gw, browser, 'owner');

  browser.scenario('a number on one line, Remove on screen', async (page) => {
    expect((await gw.tenant.api.post('/suppressions', { phone: '+491701234599' })).status).to.equal(201);
    await page.setViewportSize(PHONE);
    await owner.enter(page);
    await openPanel(page, '/opt-out', 'Opt-out');
    const row = page.getByRole('row').filter({ hasText: '+491701234599' });
    const number = await row.getByRole('rowheader').boundingBox();
    const remove = await row.getByRole('button', { name: 'Remove +491701234599' }).boundingBox();
    expect(number!.height, 'the number breaks over lines').to.be.below(40);
    expect(remove!.x + remove!.width, 'Remove is off screen').to.be.at.most(PHONE.width);
  });
});
