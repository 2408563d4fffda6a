// Text far past what an SMS holds, from an ESME we did not write (Net::SMPP, driven by
// test/smpp/oversized-esme.pl): a 16,000-octet message_payload and the four 16,000-octet SAR
// parts of one message are each refused ESME_RINVMSGLEN as it arrives, nothing is stored, and
// another tenant's API calls are answered all the while. How fast, and what it costs the
// process, is measured by scripts/drills/hostile-smpp-payload.ts.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useGateway } from '../support/use-gateway.ts';
import { hasNetSmpp, issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

const SCRIPT = fileURLToPath(new URL('./oversized-esme.pl', import.meta.url));
const OCTETS = 16_000;
const PARTS = 4;

describe('SMPP: oversized text from Net::SMPP', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  before(function () {
    // .ci/run installs it; elsewhere: apt-get install libnet-smpp-perl.
    if (!hasNetSmpp()) this.skip();
  });

  it('when an ESME sends a 16,000-octet message_payload and four 16,000-octet SAR parts, then each is refused ESME_RINVMSGLEN and another tenant is served meanwhile', async () => {
    const credential = await issueCredential(fx.tenant);
    const other = await fx.newTenant();
    let running = true;
    const esme = new Promise<string>((resolve, reject) => {
      const args = [SCRIPT, '127.0.0.1', String(fx.gateway.smppPort), credential.system_id, credential.password, '79161234567', String(OCTETS), String(PARTS)];
      execFile('perl', args, { timeout: 30_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)));
    }).finally(() => (running = false));
    const answered: number[] = [];
    while (running) answered.push((await other.api.get('/devices')).status);
    const output = await esme;

    expect(output.trim().split('\n')).to.deep.equal([
      `whole ${STATUS.ESME_RINVMSGLEN}`,
      ...Array.from({ length: PARTS }, (_, i) => `part ${i + 1} ${STATUS.ESME_RINVMSGLEN}`),
      'done',
    ]);
    expect(answered).to.not.be.empty;
    expect(answered.every((status) => status === 200), `the other tenant's answers: ${answered.join(' ')}`).to.equal(true);
    expect((await fx.tenant.api.get('/sms')).body.data).to.have.length(0);
  });
});
