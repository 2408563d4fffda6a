// destination_addr without "+": international TON gets its "+"; a national or unknown-TON number
// is read in DEFAULT_PHONE_REGION, and without one it is refused ESME_RINVDSTADR, never accepted
// and then lost. Every accepted SMS is handed to a phone and ends with a receipt.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

const TON = { unknown: 0, international: 1, national: 2, alphanumeric: 5 };
const NPI = { unknown: 0, isdn: 1, private: 9 };

function destinationCases(region: string | undefined) {
  const fx = useGateway({ config: { smpp: SMPP_ON, defaultPhoneRegion: region } });
  let esme: TestEsme;
  beforeEach(async () => {
    esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant, { throughput_per_second: 1000, window_size: 50 }));
  });
  afterEach(() => esme.close());

  /** The phone the SMS went to, once delivered and its receipt came; or the refusal's status. */
  async function outcome(ton: number, npi: number, address: string): Promise<string | number> {
    const response = await esme.call('submit_sm', { dest_addr_ton: ton, dest_addr_npi: npi, destination_addr: address, short_message: 'hi', registered_delivery: 1 });
    if (response.command_status !== STATUS.ESME_ROK) return response.command_status;
    const receipt = await esme.receiptOf(response.message_id);
    expect((receipt.short_message as { message: string }).message).to.match(/stat:DELIVRD/);
    return (await fx.tenant.api.get(`/sms/${response.message_id}`)).body.phone;
  }

  return { fx, outcome };
}

describe('SMPP: destination_addr without "+"', () => {
  describe('without DEFAULT_PHONE_REGION', () => {
    const { fx, outcome } = destinationCases(undefined);
    beforeEach(async () => void (await fx.connectDevice()));

    it('adds "+" to international digits (TON 1, NPI 1 or 0) and keeps an international number written with "+"', async () => {
      expect(await outcome(TON.international, NPI.isdn, '4915112345678')).to.equal('+4915112345678');
      expect(await outcome(TON.international, NPI.unknown, '79161234567')).to.equal('+79161234567');
      expect(await outcome(TON.unknown, NPI.isdn, '+79161234567')).to.equal('+79161234567');
      expect(await outcome(TON.international, NPI.isdn, '+79161234567')).to.equal('+79161234567');
    });

    it('refuses national and unknown-TON digits ESME_RINVDSTADR: there is no region to read them in', async () => {
      expect(await outcome(TON.unknown, NPI.isdn, '79161234567')).to.equal(STATUS.ESME_RINVDSTADR);
      expect(await outcome(TON.national, NPI.isdn, '015112345678')).to.equal(STATUS.ESME_RINVDSTADR);
      expect(await outcome(TON.unknown, NPI.unknown, '015112345678')).to.equal(STATUS.ESME_RINVDSTADR);
    });

    it('refuses what is no phone number ESME_RINVDSTADR: other TONs and NPIs, letters, digits no numbering plan has', async () => {
      expect(await outcome(TON.alphanumeric, NPI.unknown, 'Shop')).to.equal(STATUS.ESME_RINVDSTADR);
      expect(await outcome(TON.international, NPI.private, '4915112345678')).to.equal(STATUS.ESME_RINVDSTADR);
      expect(await outcome(TON.international, NPI.isdn, '49-151-12345678')).to.equal(STATUS.ESME_RINVDSTADR);
      expect(await outcome(TON.international, NPI.isdn, '999')).to.equal(STATUS.ESME_RINVDSTADR);
      expect(await outcome(TON.international, NPI.isdn, '')).to.equal(STATUS.ESME_RINVDSTADR);
    });
  });

  describe('with DEFAULT_PHONE_REGION=DE', () => {
    const { fx, outcome } = destinationCases('DE');
    beforeEach(async () => void (await fx.connectDevice()));

    it('reads national and unknown-TON digits in the region; international TON is still international', async () => {
      expect(await outcome(TON.national, NPI.isdn, '015112345678')).to.equal('+4915112345678');
      expect(await outcome(TON.unknown, NPI.isdn, '015112345678')).to.equal('+4915112345678');
      expect(await outcome(TON.international, NPI.isdn, '79161234567')).to.equal('+79161234567');
      expect(await outcome(TON.unknown, NPI.isdn, '+79161234567')).to.equal('+79161234567');
    });

    it('refuses national digits the region has no number for ESME_RINVDSTADR', async () => {
      expect(await outcome(TON.national, NPI.isdn, '0123')).to.equal(STATUS.ESME_RINVDSTADR);
      expect(await outcome(TON.national, NPI.isdn, '+4915112345678')).to.equal(STATUS.ESME_RINVDSTADR);
    });
  });
});
