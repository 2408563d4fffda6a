// When the gateway's enquire_link comes: SMPP_ENQUIRE_LINK_INTERVAL after the last PDU the ESME
// sent, not up to half an interval later. The ESME answers each enquire_link at once, so that
// answer is its last PDU; the next enquire_link is measured from it. The bound is loose for a
// loaded machine (1.3 intervals) and still tighter than the 1.5 a half-interval tick gave.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';

const INTERVAL_MS = 2_000;

describe('SMPP: enquire_link on time', () => {
  const fx = useGateway({ config: { smpp: { ...SMPP_ON, enquireLinkMs: INTERVAL_MS } } });
  let esme: TestEsme | undefined;
  afterEach(() => esme?.close());

  it('sends enquire_link one interval after the ESME\'s last PDU, each time', async function () {
    this.timeout(30_000);
    esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant));
    const isLink = (pdu: { command: string }) => pdu.command === 'enquire_link';
    // The first is answered at once (TestEsme answers them): from here on that answer is the last PDU.
    await esme.next(isLink, 3 * INTERVAL_MS);
    const gaps: number[] = [];
    let answeredAt = Date.now();
    for (let i = 0; i < 3; i++) {
      await esme.next(isLink, 3 * INTERVAL_MS);
      const now = Date.now();
      gaps.push(now - answeredAt);
      answeredAt = now;
    }
    for (const gap of gaps) {
      expect(gap, `enquire_link came ${gaps.join(', ')} ms after the last PDU`).to.be.within(INTERVAL_MS - 100, 1.3 * INTERVAL_MS);
    }
  });
});
