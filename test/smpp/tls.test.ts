// SMPP over TLS on SMPP_TLS_PORT, with SMPP_TLS_CERT and SMPP_TLS_KEY: an ESME that trusts the
// certificate binds and submits; the plain port stays off when only TLS is asked for.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { issueCredential, TestEsme } from '../support/smpp-client.ts';
import { copyFileSync, writeFileSync } from 'node:fs';
import { certificateDirectory, makeCertificate, servedSerial, type TestCertificate } from '../tls/tls-support.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

describe('SMPP: over TLS', () => {
  const certificates = certificateDirectory();
  let certificate: TestCertificate;
  const fx = useGateway({
    config: () => {
      certificate = makeCertificate(certificates.directory, 'smpp');
      return { smpp: { port: undefined, tls: { port: 0, certFile: certificate.certFile, keyFile: certificate.keyFile }, enquireLinkMs: 30_000, receiptRetentionMs: 3_600_000 } };
    },
  });
  after(() => certificates.remove());

  it('binds and submits over TLS; plain SMPP is off', async () => {
    expect(() => fx.gateway.smppPort).to.throw('SMPP is off');
    const credential = await issueCredential(fx.tenant);
    const esme = await TestEsme.connect(fx.gateway.smppTlsPort, certificate.pem);
    try {
      expect((await esme.call('bind_transceiver', { system_id: credential.system_id, password: credential.password })).command_status).to.equal(STATUS.ESME_ROK);
      const submitted = await esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'over TLS' });
      expect(submitted.command_status).to.equal(STATUS.ESME_ROK);
      expect((await fx.tenant.api.get(`/sms/${submitted.message_id}`)).body.message).to.equal('over TLS');
    } finally {
      esme.close();
    }
  });

  it('serves a renewed certificate after reloadSmppCertificate (SIGHUP), and keeps the old one when the new files are bad', async () => {
    expect(fx.gateway.certificates.reloadSmpp('test'), 'the files hold the pair served').to.equal('unchanged');
    const renewed = makeCertificate(certificates.directory, 'renewed');
    writeFileSync(certificate.certFile, 'not a certificate');
    expect(fx.gateway.certificates.reloadSmpp('test')).to.equal('refused');
    expect(await servedSerial(fx.gateway.smppTlsPort)).to.equal(certificate.serialNumber);
    copyFileSync(renewed.certFile, certificate.certFile);
    copyFileSync(renewed.keyFile, certificate.keyFile);
    expect(fx.gateway.certificates.reloadSmpp('test')).to.equal('applied');
    expect(await servedSerial(fx.gateway.smppTlsPort)).to.equal(renewed.serialNumber);
  });
});
