// When the gateway's enquire_link comes: SMPP_ENQUIRE_LINK_INTERVAL after the last PDU the ESME
// sent, not up to half an interval later. The ESME answers each enquire_link at once, so that
// answer is its last PDU; the next enquire_link is measured from it, less how late this process's
// own timers run meanwhile (the gateway shares it). The bound (1.3 intervals) is still tighter than
// the 1.5 a half-interval tick gave.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';

const INTERVAL_MS = 2_000;

/** How much later than `ms` from now a timer of this process fires. */
function timerLateness(ms: number): Promise<number> {
  const due = Date.now() + ms;
  return new Promise((resolve) => setTimeout(() => resolve(Math.max(0, Date.now() - due)), ms));
}

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
      // The gateway shares this process: a timer of ours set for the same interval is as late as
      // its timer when the process is busy, and that lateness is not the gateway's doing.
      const lateness = timerLateness(INTERVAL_MS);
      await esme.next(isLink, 3 * INTERVAL_MS);
      const now = Date.now();
      gaps.push(now - answeredAt - (await lateness));
      answeredAt = now;
    }
    for (const gap of gaps) {
      expect(gap, `enquire_link came ${gaps.join(', ')} ms after the last PDU, less this process's timer lateness`).to.be.within(INTERVAL_MS - 100, 1.3 * INTERVAL_MS);
    }
  });
});
