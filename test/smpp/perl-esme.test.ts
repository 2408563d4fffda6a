// The SMPP server with a client nobody here wrote: Debian's Net::SMPP (libnet-smpp-perl), driven
// by test/smpp/esme.pl. It binds as transceiver, submits an SMS, and reads its delivery receipt.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useGateway } from '../support/use-gateway.ts';
import { hasNetSmpp, issueCredential, SMPP_ON } from '../support/smpp-client.ts';

const SCRIPT = fileURLToPath(new URL('./esme.pl', import.meta.url));

describe('SMPP: an ESME we did not write (Net::SMPP)', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  before(function () {
    // .ci/run installs it; elsewhere: apt-get install libnet-smpp-perl.
    if (!hasNetSmpp()) this.skip();
  });

  it('binds as transceiver, submits an SMS, and reads its DELIVRD receipt', async () => {
    await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    const output = await new Promise<string>((resolve, reject) => {
      execFile('perl', [SCRIPT, '127.0.0.1', String(fx.gateway.smppPort), credential.system_id, credential.password, '79161234567', 'Hello from Perl'], { timeout: 30_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
      );
    });
    const lines = output.trim().split('\n');
    expect(lines[0]).to.equal('bound');
    const id = /^submitted (\S+)$/.exec(lines[1] ?? '')?.[1];
    expect(id, output).to.be.a('string');
    const sms = await fx.tenant.api.get(`/sms/${id}`);
    expect(sms.body).to.include({ phone: '+79161234567', message: 'Hello from Perl' });
    expect(lines[2]).to.match(new RegExp(`^receipt receipted_message_id=${id} message_state=2 text=id:${id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Hello from Perl$`));
  });
});
