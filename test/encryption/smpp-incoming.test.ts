// An end-to-end encrypted incoming SMS is not offered to SMPP clients: its sender is ciphertext,
// which no SMPP address can carry. A plain one received after it still is.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { eventually } from '../support/eventually.ts';
import { incomingRowsOf } from '../support/test-data.ts';

describe('end-to-end encrypted incoming SMS and SMPP', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  it('delivers the plain incoming SMS to the ESME and never the encrypted one', async () => {
    const encrypting = await fx.connectDevice({ passphrase: 'phones know it', encryptIncoming: true });
    const plain = await fx.connectDevice();
    for (const phone of [encrypting, plain]) {
      expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    }
    const esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant), 'bind_receiver');
    try {
      await encrypting.receive('+79990001122', 'sealed');
      await plain.receive('+79990001133', 'open');
      const pdu = await esme.next((candidate) => candidate.command === 'deliver_sm' && candidate.esm_class === 0);
      expect(pdu.source_addr).to.equal('79990001133');
      expect((pdu.short_message as { message: string }).message).to.equal('open');
      const stored = await incomingRowsOf(fx, fx.tenant.accountId);
      expect(stored.map((row: { is_encrypted: boolean }) => row.is_encrypted)).to.deep.equal([true, false]);
      await eventually('no deliver_sm left to send', async () => ((await fx.gateway.services.smpp.countPending()) === 0 ? true : undefined));
    } finally {
      esme.close();
    }
  });
});
