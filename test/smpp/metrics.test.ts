// SMPP's metrics on /metrics: binds by mode and outcome, PDUs by command and the status
// answered, sessions bound now, and deliver_sm stored and not yet answered.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { scrapeMetrics } from '../support/metrics.ts';
import { bindEsme, issueCredential, SMPP_ON, TestEsme } from '../support/smpp-client.ts';

describe('SMPP: metrics', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  it('counts binds, PDUs by command and status, sessions, and pending receipts', async () => {
    const credential = await issueCredential(fx.tenant);
    const refused = await TestEsme.connect(fx.gateway.smppPort);
    await refused.call('bind_transmitter', { system_id: credential.system_id, password: 'wrong123' });
    refused.close();
    const esme = await bindEsme(fx.gateway, credential, 'bind_transmitter');
    try {
      await esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'counted' });
      await esme.call('submit_sm', { destination_addr: '', short_message: 'refused' });
      const metrics = fx.gateway.services.metrics;
      expect(metrics.value('smpp_binds_total', { mode: 'transmitter', outcome: 'bound' })).to.be.at.least(1);
      expect(metrics.value('smpp_binds_total', { mode: 'transmitter', outcome: 'refused' })).to.be.at.least(1);
      expect(metrics.value('smpp_pdus_total', { command: 'submit_sm', status: 'ESME_ROK' })).to.be.at.least(1);
      expect(metrics.value('smpp_pdus_total', { command: 'submit_sm', status: 'ESME_RINVDSTADR' })).to.be.at.least(1);
      const text = await (await scrapeMetrics(fx.baseUrl)).text();
      expect(text).to.match(/^smpp_sessions(\{[^}]*\})? [1-9]/m);
      expect(text).to.match(/^smpp_receipts_pending(\{[^}]*\})? \d+/m);
    } finally {
      esme.close();
    }
  });
});
