// Wrong SMPP binds are throttled per client address and per system_id, and a system_id locked for
// too many wrong passwords stays locked towards the addresses that failed with it only: an ESME
// binding from an address that has not failed is still checked, and its right password binds.
// Anyone who knows a system_id (it travels in clear in every bind) could otherwise keep its ESME
// off for good with a dozen wrong binds from a dozen addresses every AUTH_CREDENTIAL_FAILURE_WINDOW.
// Each ESME here binds from an address of its own (127.0.0.x are all this machine).
import { expect } from 'chai';
import smpp, { type PDU } from 'smpp';
import { useGateway } from '../support/use-gateway.ts';
import { issueCredential, SMPP_ON, type IssuedCredential } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

/** The gateway's default: failures of one system_id, from any addresses, that lock it. */
const CREDENTIAL_LIMIT = 10;

describe('SMPP: wrong binds from many addresses', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  /** One bind from `from` on a connection of its own; resolves with its command_status. */
  function bindFrom(from: string, systemId: string, password: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const session = smpp.connect({ url: `smpp://127.0.0.1:${fx.gateway.smppPort}`, localAddress: from, auto_enquire_link_period: 0 }, () => {
        session.send(new smpp.PDU('bind_transceiver', { system_id: systemId, password }), (response: PDU) => {
          session.destroy();
          resolve(response.command_status);
        });
      });
      session.on('error', reject);
    });
  }

  /** One wrong bind from each of `addresses`, each answered ESME_RBINDFAIL. */
  async function failFrom(addresses: string[], credential: IssuedCredential): Promise<void> {
    for (const [i, from] of addresses.entries()) {
      expect(await bindFrom(from, credential.system_id, `wrong${String(i).padStart(3, '0')}`), `wrong bind from ${from}`).to.equal(STATUS.ESME_RBINDFAIL);
    }
  }

  const range = (first: number, count: number) => Array.from({ length: count }, (_, i) => `127.0.0.${first + i}`);

  describe('when twelve addresses send wrong passwords for one system_id', () => {
    it('then the right password from an address that has not failed binds at once, and the failing addresses stay refused', async () => {
      const credential = await issueCredential(fx.tenant);
      const failing = range(2, CREDENTIAL_LIMIT + 2);
      await failFrom(failing, credential);

      expect(await bindFrom('127.0.0.100', credential.system_id, credential.password), 'the ESME, from its own address').to.equal(STATUS.ESME_ROK);
      for (const from of failing) {
        expect(await bindFrom(from, credential.system_id, credential.password), `right password from ${from}, which failed`).to.equal(STATUS.ESME_RBINDFAIL);
      }
      expect(fx.gateway.services.metrics.value('auth_throttled_total', { channel: 'smpp', by: 'credential' })).to.be.at.least(failing.length);
    });

    it('then a fresh address gets one wrong try and is refused from then on', async () => {
      const credential = await issueCredential(fx.tenant);
      await failFrom(range(20, CREDENTIAL_LIMIT), credential);

      expect(await bindFrom('127.0.0.40', credential.system_id, 'guess001'), 'one guess from a new address').to.equal(STATUS.ESME_RBINDFAIL);
      expect(await bindFrom('127.0.0.40', credential.system_id, credential.password), 'the same address, now with the right password').to.equal(STATUS.ESME_RBINDFAIL);
      // Another system_id is not locked towards that address.
      const other = await issueCredential(fx.tenant);
      expect(await bindFrom('127.0.0.40', other.system_id, other.password)).to.equal(STATUS.ESME_ROK);
      expect(await bindFrom('127.0.0.41', credential.system_id, credential.password), 'an address that never failed').to.equal(STATUS.ESME_ROK);
    });
  });
});
